// Drives folio with Vercel's AI SDK as an agent would: @ai-sdk/mcp's
// client (2026-07-28 when the server speaks it), its tools in a
// generateText tool loop (a scripted model calls them), and the client's
// other requests. The plan is a JSON file (argv[2]):
//
//   {"stdio": {"command": "...", "args": [...]}} or {"http": "http://..."},
//   "calls": [{"tool": "...", "args": {...}}],   called in one model step
//   "prompt": {"name": "...", "args": {...}},     prompts/get
//   "resource": "file://...",                     resources/read
//   "complete": {...}                             completion/complete params
//
// It prints one JSON object: the protocol version, and for each step
// {"ok": true, "value": ...} or {"ok": false, "error": "..."}. Input
// requests (elicitation) are answered {"answer": "sure"}.
import { readFileSync } from "node:fs";
import { createMCPClient, ElicitationRequestSchema } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const transport = plan.http
  ? { type: "http", url: plan.http }
  : new Experimental_StdioMCPTransport(plan.stdio);
const out = {};
const step = async (name, f) => {
  try {
    out[name] = { ok: true, value: await f() };
  } catch (e) {
    out[name] = { ok: false, error: String(e?.message ?? e) + (e?.cause ? ": " + String(e.cause?.message ?? e.cause) : "") };
  }
};

const client = await createMCPClient({ transport, capabilities: { elicitation: {} } });
client.onElicitationRequest(ElicitationRequestSchema, () => ({ action: "accept", content: { answer: "sure" } }));
out.protocolVersion = client.initializeResult?.protocolVersion ?? null;
try {
  const tools = await client.tools();
  out.tools = Object.keys(tools).sort();
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  let turn = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      if (turn++ === 0) {
        return {
          content: (plan.calls ?? []).map((c, i) => ({
            type: "tool-call", toolCallId: "call" + i, toolName: c.tool, input: JSON.stringify(c.args ?? {}),
          })),
          finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [],
        };
      }
      return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
  const result = await generateText({ model, tools, prompt: "use the tools", stopWhen: stepCountIs(3) });
  const first = result.steps[0];
  out.calls = (plan.calls ?? []).map((_, i) => {
    const id = "call" + i;
    const res = first.toolResults.find((r) => r.toolCallId === id);
    if (res) return { ok: true, value: res.output };
    const err = first.content.find((p) => p.type === "tool-error" && p.toolCallId === id);
    return { ok: false, error: String(err?.error?.message ?? err?.error ?? "no result") + (err?.error?.cause ? ": " + String(err.error.cause?.message ?? err.error.cause) : "") };
  });
  if (plan.prompt) await step("prompt", () => client.getPrompt({ name: plan.prompt.name, arguments: plan.prompt.args }));
  if (plan.resource) await step("resource", () => client.readResource({ uri: plan.resource }));
  if (plan.complete) await step("complete", () => client.complete(plan.complete));
  await step("resources", () => client.listResources());
  await step("prompts", () => client.listPrompts());
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
