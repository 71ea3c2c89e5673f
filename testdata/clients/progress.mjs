// Drives a stdio MCP server with the official TypeScript SDK's Client
// (@modelcontextprotocol/sdk, as LangChain's MCP adapters use it): it calls
// one tool n times in a row, each call with an onprogress handler (the SDK
// makes the request's id its progress token), and prints one JSON object a
// line:
//
//   {"protocolVersion": {"sent": "...", "answered": "..."}}, first, then
//   per call {"token": ..., "before": [...], "after": [...], "wire": [...],
//   "text": "..."}
//
// before: the progress values the call's onprogress handler got before the
// call's answer; after: those that came once the answer had (the SDK drops
// a notice whose call is answered, and says so to onerror; such a notice is
// counted here); wire: the progress values of the notices read off the
// server's standard output before the answer's line, in the order read
// (what the server wrote, before the SDK handles it).
//
//   node progress.mjs TOOL N COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tool, n, command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
const version = {};
const wire = new Map(); // progress token -> values read off the wire
const answered = new Map(); // request id -> the wire's values before its answer
const ids = []; // the calls' request ids, in order
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message.method === "initialize") {
    version.sent = message.params?.protocolVersion;
  } else if (message.method === "tools/call") {
    ids.push(message.id);
  }
  return send(message, options);
};
// Set before the client connects: the client calls it first, with each
// message as it is read, before it handles it.
transport.onmessage = (message) => {
  if (message.method === "notifications/progress") {
    const token = message.params?.progressToken;
    wire.set(token, [...(wire.get(token) ?? []), message.params?.progress]);
  } else if (message.id !== undefined && "result" in message && message.result?.protocolVersion) {
    version.answered = message.result.protocolVersion;
  } else if (message.id !== undefined) {
    answered.set(message.id, [...(wire.get(message.id) ?? [])]);
  }
};

const client = new Client({ name: "progress.mjs", version: "1" });
const late = new Map(); // progress token -> values dropped as late
client.onerror = (e) => {
  const m = /unknown token: (.*)$/s.exec(String(e?.message ?? e));
  if (m) {
    const note = JSON.parse(m[1]);
    const token = note.params?.progressToken;
    late.set(token, [...(late.get(token) ?? []), note.params?.progress]);
    return;
  }
  process.stderr.write(`client error: ${e?.message ?? e}\n`);
};
await client.connect(transport);
console.log(JSON.stringify({ protocolVersion: version }));
const calls = [];
for (let i = 0; i < Number(n); i++) {
  const seen = [];
  const c = { token: null, before: [], after: [], wire: [], text: "" };
  const res = await client.callTool({ name: tool, arguments: {} }, undefined, {
    onprogress: (p) => seen.push(p.progress),
  });
  c.before = [...seen];
  c.seen = seen;
  c.text = (res.content ?? []).map((x) => x.text ?? "").join("");
  calls.push(c);
}
await new Promise((resolve) => setTimeout(resolve, 1000));
for (const [i, c] of calls.entries()) {
  c.token = ids[i];
  c.after = [...c.seen.slice(c.before.length), ...(late.get(c.token) ?? [])];
  c.wire = answered.get(c.token);
  delete c.seen;
  console.log(JSON.stringify(c));
}
await client.close();
