import { deepEqual, equal, rejects } from "node:assert/strict";
import { compose, type Middleware } from "../../core/compose.ts";

Deno.test("compose() runs the layers as an onion, outermost first, around the handler", async () => {
  const order: string[] = [];
  const layer = (name: string): Middleware<string[], number, number> => async (_seen, next) => {
    order.push(`${name} in`);
    const result = await next();
    order.push(`${name} out`);
    return result + 1;
  };
  const run = compose([layer("a"), layer("b")], (seen: string[], extra: number) => {
    seen.push("handler");
    return extra;
  });
  equal(await run(order, 10), 12);
  deepEqual(order, ["a in", "b in", "handler", "b out", "a out"]);
});

Deno.test("compose(): next(extra) replaces the second argument for the inner layers only", async () => {
  const seen: string[] = [];
  const run = compose<null, string, string>([
    (_, next) => next(),
    (_, next) => next("inner"),
    (_, next) => next(),
  ], (_, extra) => {
    seen.push(extra);
    return extra;
  });
  equal(await run(null, "outer"), "inner");
  deepEqual(seen, ["inner"]);
});

Deno.test("compose(): a layer that skips next() short-circuits; calling it twice rejects", async () => {
  let reached = false;
  const short = compose<null, undefined, string>([() => "stop"], () => {
    reached = true;
    return "body";
  });
  equal(await short(null, undefined), "stop");
  equal(reached, false);
  const twice = compose<null, undefined, number>([async (_, next) => {
    await next();
    return next();
  }], () => 1);
  await rejects(twice(null, undefined), { message: "next() called multiple times" });
});

Deno.test("compose(): synchronous throws become rejections; later changes to the array are not seen", async () => {
  const layers: Middleware<null, undefined, string>[] = [() => {
    throw new Error("layer threw");
  }];
  const run = compose(layers, () => "body");
  layers.length = 0;
  await rejects(run(null, undefined), { message: "layer threw" });
  const handlerThrows = compose<null, undefined, string>([], () => {
    throw new TypeError("handler threw");
  });
  const result = handlerThrows(null, undefined);
  equal(result instanceof Promise, true);
  await rejects(result, TypeError);
  // Each run has its own index: the same chain runs again, and concurrently.
  const counted = compose<number, undefined, number>([(_n, next) => next()], (n) => n * 2);
  deepEqual(await Promise.all([counted(1, undefined), counted(2, undefined)]), [2, 4]);
});
