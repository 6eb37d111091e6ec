import { deepEqual, equal, throws } from "node:assert/strict";
import * as permissionGate from "../../examples/permission_gate.ts";
import { createPermissionGate } from "../../examples/permission_gate.ts";
import { createHarness } from "../../mod.ts";
import { matchGlob } from "../../tools/mod.ts";
import type { ApprovalService } from "../../registry/hooks.ts";
import { fakeAgent } from "../registry/_harness.ts";

Deno.test("permission gate plugin allows, asks and denies by tool glob and argument pattern", async (t) => {
  const ctx = await createHarness({ logSink: () => {} });
  try {
    const ran: string[] = [];
    for (const name of ["bash", "read", "write", "web_fetch"]) {
      ctx.tools.register({
        name,
        description: name,
        parameters: { type: "object" },
        execute: () => {
          ran.push(name);
          return [{ type: "text", text: `${name} ran` }];
        },
      });
    }
    const fiber = ctx.plugin(permissionGate, {
      rules: [
        { tool: "bash", args: { command: "rm *" }, decision: "deny", reason: "no rm" },
        { tool: "bash", args: { command: "git *" }, decision: "allow" },
        { tool: "write", args: { "options.mode": "7??" }, decision: "deny" },
        { tool: "write", decision: "ask", reason: "writes need a human" },
        { tool: "re?d", decision: "allow" },
      ],
      fallback: "deny",
    });
    equal(fiber.state, "active");
    const asked: string[] = [];
    const approval: ApprovalService = {
      request(exec, options) {
        asked.push(`${exec.name}: ${options.reason}`);
        return Promise.resolve("allowed-once");
      },
    };
    ctx.provide("approval", approval);
    const cases: [string, string, unknown, string][] = [
      ["deny by argument", "bash", { command: "rm -rf /" }, "Error: no rm"],
      ["allow by argument", "bash", { command: "git status" }, "bash ran"],
      [
        "fallback deny",
        "bash",
        { command: "curl x" },
        'Error: tool "bash" is denied (no permission rule allows it)',
      ],
      [
        "nested argument path",
        "write",
        { options: { mode: "755" } },
        'Error: tool "write" is denied by permission rule 3 ("write")',
      ],
      ["ask goes to approval", "write", { path: "a" }, "write ran"],
      ["glob allow", "read", {}, "read ran"],
      [
        "unmatched tool",
        "web_fetch",
        {},
        'Error: tool "web_fetch" is denied (no permission rule allows it)',
      ],
    ];
    for (const [label, name, args, expected] of cases) {
      await t.step(label, async () => {
        const outcome = await ctx.tools.execute({
          callId: label,
          name,
          arguments: args,
          agent: fakeAgent(),
        });
        equal(outcome.content[0]?.type === "text" ? outcome.content[0].text : "", expected);
      });
    }
    deepEqual(asked, ["write: writes need a human"]);
    deepEqual(ran, ["bash", "write", "read"]);
    await fiber.dispose();
    equal(
      (await ctx.tools.execute({ callId: "after", name: "web_fetch", arguments: {} })).isError,
      false,
    );
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("the gate never loosens another middleware's decision", async () => {
  const ctx = await createHarness({ logSink: () => {} });
  try {
    ctx.tools.register({
      name: "x",
      description: "x",
      parameters: { type: "object" },
      execute: () => [{ type: "text", text: "x ran" }],
    });
    const asked: string[] = [];
    ctx.provide(
      "approval",
      {
        request(_call, options) {
          asked.push(options.reason ?? "");
          return Promise.resolve("rejected");
        },
      } satisfies ApprovalService,
    );
    const run = async (earlier: "deny" | "ask", gate: "allow" | "ask") => {
      const fiber = ctx.plugin({
        name: "earlier",
        inject: ["tools"],
        apply(c: typeof ctx) {
          c.tools.use("tools/pre-execute", () => ({ kind: earlier, reason: `earlier ${earlier}` }));
        },
      });
      const gated = ctx.plugin(permissionGate, { rules: [{ tool: "*", decision: gate }] });
      const outcome = await ctx.tools.execute({
        callId: `${earlier}-${gate}`,
        name: "x",
        arguments: {},
        agent: fakeAgent(),
      });
      await gated.dispose();
      await fiber.dispose();
      return outcome.content[0]?.type === "text" ? outcome.content[0].text : "";
    };
    equal(await run("deny", "allow"), "Error: earlier deny");
    equal(await run("deny", "ask"), "Error: earlier deny");
    asked.length = 0;
    equal(await run("ask", "allow"), 'Error: the user rejected tool "x"');
    deepEqual(asked, ["earlier ask"]);
  } finally {
    await ctx.fiber.dispose();
  }
});

Deno.test("createPermissionGate() rejects malformed rules", () => {
  throws(() => createPermissionGate({ rules: [{ tool: "x", decision: "maybe" as "allow" }] }), {
    name: "TypeError",
    message:
      'Cannot create a permission gate: "permissions[0].decision" must be one of "allow", "ask", "deny": received "maybe"',
  });
  throws(() => createPermissionGate({ rules: [], fallback: "nope" as "allow" }), TypeError);
});

Deno.test("matchGlob() treats regex characters literally", () => {
  equal(matchGlob("a.b", "a.b"), true);
  equal(matchGlob("a.b", "axb"), false);
  equal(matchGlob("mcp__*__read", "mcp__fs__read"), true);
  equal(matchGlob("*", "anything\nmultiline"), true);
});

Deno.test("createPermissionGate() and dsh.jsonc decide the same rules the same way", async () => {
  const { decide, DEFAULT_CONFIG } = await import("../../acp/config.ts");
  const rules = [
    { tool: "bash", args: { command: "git *" }, decision: "allow" as const },
    { tool: "*", decision: "ask" as const },
  ];
  const gate = createPermissionGate({ rules });
  const config = { ...DEFAULT_CONFIG, permissions: rules };
  for (const [name, args] of [["bash", { command: "git log" }], ["bash", { command: "rm x" }]]) {
    const call = { name, arguments: args } as never;
    const next = () => Promise.resolve({ isError: false, content: [] });
    const decision = await gate(call, next);
    equal(
      "kind" in decision ? decision.kind : "allow",
      decide(config, name as string, args).decision,
    );
  }
});
