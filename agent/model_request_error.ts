/**
 * The error a model adapter throws when the provider refuses or fails a request.
 *
 * @module
 */

/** Options for {@linkcode ModelRequestError}. */
export interface ModelRequestErrorOptions extends ErrorOptions {
  /** The HTTP status, when the server answered. */
  readonly status?: number;
  /** Whether retrying the same request could succeed (429, 5xx, network, a cut stream). @default {false} */
  readonly retryable?: boolean;
}

/**
 * A failed model request, carrying the server's message and HTTP status.
 *
 * @example Usage
 * ```ts
 * import { ModelRequestError } from "./model_request_error.ts";
 * import { equal } from "node:assert/strict";
 * const error = new ModelRequestError("DeepSeek request failed with HTTP 401: bad key", { status: 401 });
 * equal(error.status, 401);
 * equal(error.retryable, false);
 * ```
 */
export class ModelRequestError extends Error {
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** Whether retrying could succeed. */
  readonly retryable: boolean;

  /**
   * Creates the error.
   *
   * @param message What failed, with the server's message.
   * @param options Status, retryability and cause.
   */
  constructor(message: string, options: ModelRequestErrorOptions = {}) {
    super(message, options);
    this.name = "ModelRequestError";
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}
