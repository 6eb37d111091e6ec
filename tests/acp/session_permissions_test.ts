import { deepEqual, equal } from "node:assert/strict";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { PERMISSION_OPTIONS, SessionPermissions } from "../../acp/session_permissions.ts";

function answering(...answers: (RequestPermissionResponse | Error)[]) {
  const asked: RequestPermissionRequest[] = [];
  const permissions = new SessionPermissions("s1", (params) => {
    asked.push(params);
    const next = answers.shift();
    return next instanceof Error || next === undefined
      ? Promise.reject(next ?? new Error("none"))
      : Promise.resolve(next);
  });
  return { permissions, asked };
}
const pick = (optionId: string): RequestPermissionResponse => ({
  outcome: { outcome: "selected", optionId },
});
const card = { toolCallId: "c1", title: "Write a" };

Deno.test("SessionPermissions.ask() sends the card with the four options", async () => {
  const { permissions, asked } = answering(pick("allow_once"));
  equal(await permissions.ask("write", card), "allowed-once");
  deepEqual(asked, [{ sessionId: "s1", toolCall: card, options: [...PERMISSION_OPTIONS] }]);
  deepEqual(PERMISSION_OPTIONS.map((o) => o.kind), [
    "allow_once",
    "allow_always",
    "reject_once",
    "reject_always",
  ]);
});

Deno.test("SessionPermissions.ask() remembers always answers per tool name", async () => {
  const { permissions, asked } = answering(
    pick("allow_always"),
    pick("reject_always"),
    pick("reject_once"),
  );
  equal(await permissions.ask("write", card), "allowed-always");
  equal(await permissions.ask("write", card), "allowed-always");
  equal(await permissions.ask("bash", card), "rejected");
  equal(await permissions.ask("bash", card), "rejected");
  equal(await permissions.ask("edit", card), "rejected");
  equal(asked.length, 3);
});

Deno.test("SessionPermissions.ask() answers cancelled for a cancelled prompt, a failure or an aborted turn", async () => {
  const { permissions } = answering({ outcome: { outcome: "cancelled" } }, new Error("closed"));
  equal(await permissions.ask("write", card), "cancelled");
  equal(await permissions.ask("write", card), "cancelled");
  const controller = new AbortController();
  controller.abort();
  equal(await permissions.ask("write", card, controller.signal), "cancelled");
});

Deno.test("SessionPermissions.ask() treats an unknown option as a rejection", async () => {
  const { permissions } = answering(pick("maybe"));
  equal(await permissions.ask("write", card), "rejected");
});

Deno.test("SessionPermissions.ask() remembers scoped always answers per tool and scope", async () => {
  const { permissions, asked } = answering(
    pick("allow_always"),
    pick("allow_once"),
    pick("reject_always"),
  );
  const etc = { key: "outside:/etc", label: 'read in "/etc"' };
  const home = { key: "outside:/root", label: 'read in "/root"' };
  equal(await permissions.ask("read", card, undefined, etc), "allowed-always");
  equal(asked[0]?.options[1]?.name, 'Always allow read in "/etc"');
  equal(asked[0]?.options[3]?.name, 'Always reject read in "/etc"');
  equal(await permissions.ask("read", card, undefined, etc), "allowed-always");
  equal(asked.length, 1);
  // Another scope, the same tool unscoped, and another tool in the same scope all ask.
  equal(await permissions.ask("read", card, undefined, home), "allowed-once");
  equal(await permissions.ask("read", card), "rejected");
  equal(asked.length, 3);
  deepEqual(asked[2]?.options, [...PERMISSION_OPTIONS]);
  // A whole-tool "always reject" also rejects the tool's scoped asks; an allowed scope too.
  equal(await permissions.ask("read", card, undefined, home), "rejected");
  equal(await permissions.ask("read", card, undefined, etc), "rejected");
  equal(asked.length, 3);
});

Deno.test("SessionPermissions.ask() never lets a tool-wide always allow cover a scoped ask", async () => {
  const { permissions, asked } = answering(pick("allow_always"), pick("reject_once"));
  equal(await permissions.ask("write", card), "allowed-always");
  const scope = { key: "outside:/etc", label: 'write in "/etc"' };
  equal(await permissions.ask("write", card, undefined, scope), "rejected");
  equal(asked.length, 2);
});
