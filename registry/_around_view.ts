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

/** Every change but a new `signal` is refused with the same explanation. */
function refuse(change: string, property: string | symbol): never {
  const what = JSON.stringify(String(property));
  throw new TypeError(
    `Cannot ${change.replace("%", what)} tool execution: only "signal" may be replaced`,
  );
}

const handler: ProxyHandler<{ signal: AbortSignal }> = {
  set(target, property, value) {
    if (property !== "signal") refuse("set % on a", property);
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
  deleteProperty: (_target, property) => refuse("delete % from a", property),
  defineProperty: (_target, property) => refuse("define % on a", property),
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
