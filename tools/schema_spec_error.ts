/**
 * The error `checkParameters()` throws on a schema DSL author mistake.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";

/**
 * A DSL author mistake found at definition time (code `UNSUPPORTED_SCHEMA`), with the
 * path of the offending spec node, such as `parameters.opts.properties.mode.enum[1]`.
 *
 * @example Usage
 * ```ts
 * import { checkParameters, SchemaSpecError } from "./schema.ts";
 * import { throws } from "node:assert/strict";
 * throws(() => checkParameters({ a: { type: "string", minLength: 1 } as never }), SchemaSpecError);
 * ```
 */
export class SchemaSpecError extends HarnessError {
  /** The path of the offending spec node. */
  readonly path: string;

  /**
   * Creates the error.
   *
   * @param path The path of the offending spec node.
   * @param message The message, starting with the path.
   */
  constructor(path: string, message: string) {
    super("UNSUPPORTED_SCHEMA", message);
    this.name = "SchemaSpecError";
    this.path = path;
  }
}
