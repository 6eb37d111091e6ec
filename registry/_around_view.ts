/**
 * The view a `tools/execute` wrapper receives: frozen identity plus a replaceable `signal`
 * (private to registry/).
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import type { ToolExecution } from "../tools/definition.ts";
import type { AroundExecution } from "./types.ts";

/** A wrapper view and a reader of its current signal. */
export interface AroundView {
  readonly view: AroundExecution;
  readonly target: { signal: AbortSignal };
}

const handler: ProxyHandler<{ signal: AbortSignal }> = {
  set(target, property, value) {
    if (property !== "signal") {
      throw new TypeError(
        `Cannot set ${
          JSON.stringify(String(property))
        } on a tool execution: only "signal" may be replaced`,
      );
    }
    if (!(value instanceof AbortSignal)) {
      throw new TypeError(
        `Cannot set "signal" on a tool execution: expected an AbortSignal, received ${
          describeValue(value)
        }`,
      );
    }
    target.signal = value;
    return true;
  },
  deleteProperty(_target, property) {
    throw new TypeError(
      `Cannot delete ${
        JSON.stringify(String(property))
      } from a tool execution: only "signal" may be replaced`,
    );
  },
  defineProperty(_target, property) {
    throw new TypeError(
      `Cannot define ${
        JSON.stringify(String(property))
      } on a tool execution: only "signal" may be replaced`,
    );
  },
  setPrototypeOf() {
    throw new TypeError("Cannot change the prototype of a tool execution");
  },
  preventExtensions() {
    throw new TypeError("Cannot freeze a tool execution view: its signal stays replaceable");
  },
};

/** Makes the wrapper view of `exec`. */
export function aroundView(exec: ToolExecution): AroundView {
  const target = { ...exec };
  return { view: new Proxy(target, handler) as AroundExecution, target };
}
