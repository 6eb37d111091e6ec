import { deepEqual } from "node:assert/strict";
import { mcpResultContent } from "../../mcp/result.ts";

Deno.test("mcpResultContent() maps text, image, audio, resources and unknown items", () => {
  deepEqual(
    mcpResultContent({
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "file:///b.txt", mimeType: "text/plain", text: "b" } },
        {
          type: "resource",
          resource: { uri: "file:///c.png", mimeType: "image/png", blob: "BBBB" },
        },
        { type: "resource", resource: { uri: "file:///d.gz", blob: "CCCC" } },
        { type: "hologram" },
      ],
    }),
    [
      { type: "text", text: "hello" },
      { type: "image", mimeType: "image/png", data: "AAAA" },
      { type: "text", text: "[audio: audio/wav]" },
      { type: "resource", uri: "file:///a.txt", mimeType: "text/plain" },
      { type: "resource", uri: "file:///b.txt", mimeType: "text/plain", text: "b" },
      { type: "image", mimeType: "image/png", data: "BBBB" },
      { type: "resource", uri: "file:///d.gz" },
      { type: "text", text: "[hologram content]" },
    ],
  );
});

Deno.test("mcpResultContent() adds structuredContent as JSON only when there is no text", () => {
  const structuredContent = { temperature: 33 };
  deepEqual(
    mcpResultContent({ content: [{ type: "text", text: "33 degrees" }], structuredContent }),
    [{ type: "text", text: "33 degrees" }],
  );
  deepEqual(
    mcpResultContent({
      content: [{ type: "image", data: "A", mimeType: "image/png" }],
      structuredContent,
    }),
    [{ type: "image", mimeType: "image/png", data: "A" }, {
      type: "text",
      text: '{"temperature":33}',
    }],
  );
  deepEqual(mcpResultContent({ structuredContent }), [{
    type: "text",
    text: '{"temperature":33}',
  }]);
  deepEqual(mcpResultContent({}), []);
});
