// The official TypeScript SDK's client signing in to folio as a user's
// client does: it meets folio's 401, finds the authorization server from
// folio's protected resource metadata, registers itself (RFC 7591), and
// sends the user through the authorization code flow with PKCE and a
// resource indicator; this script plays the user, filling in the
// authorization server's login and consent screens over HTTP. Then it
// calls tools, waits for its access token to expire, and calls again,
// which the SDK answers by refreshing the token.
//
//   node client.mjs PLAN.json
//
// PLAN: {"url": folio's MCP endpoint, "user": the login to sign in as,
//        "calls": [{"name", "arguments"}], "expire_after_ms": how long to
//        wait before calling again}
// It prints one JSON object: each call's result (or error) before and after
// the wait, how many times tokens were saved, and the scopes granted.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const redirectUrl = "http://127.0.0.1:1/callback";

// provider keeps what the SDK's OAuth client asks it to, in memory.
class Provider {
  constructor() {
    this.saved = 0;
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: "folio e2e",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens) {
    this.stored = tokens;
    this.saved++;
  }
  redirectToAuthorization(url) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

// signIn plays the user at the authorization server: it follows the
// redirects from the authorization URL, keeping cookies, submits the login
// form as plan.user and the consent form, and returns the code the last
// redirect brings to the client's redirect URL.
async function signIn(start) {
  const cookies = new Map();
  let url = String(start);
  let body;
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      method: body ? "POST" : "GET",
      body,
      redirect: "manual",
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    body = undefined;
    const location = res.headers.get("location");
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(redirectUrl)) {
        const code = next.searchParams.get("code");
        if (!code) throw new Error(`no code: ${next.href}`);
        return code;
      }
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = html.match(/<form[^>]*action="([^"]+)"/);
    if (!action) throw new Error(`step ${step}: ${res.status}, no form: ${html.slice(0, 300)}`);
    const prompt = html.match(/name="prompt" value="([^"]+)"/)?.[1];
    const form = new URLSearchParams({ prompt });
    if (prompt === "login") {
      form.set("login", plan.user);
      form.set("password", "any");
    }
    url = new URL(action[1].replaceAll("&amp;", "&"), url).href;
    body = form.toString();
  }
  throw new Error("too many steps");
}

const out = { before: [], after: [] };
const provider = new Provider();
const client = new Client({ name: "folio-oauth-e2e", version: "1" });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider }));
  throw new Error("connected without signing in");
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
}
const first = new StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider });
await first.finishAuth(await signIn(provider.authorizationUrl));
out.authorization = Object.fromEntries(new URL(provider.authorizationUrl).searchParams);
delete out.authorization.state;
delete out.authorization.code_challenge;
await client.connect(new StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider }));
out.tools = (await client.listTools()).tools.map((t) => t.name);
const call = async (into) => {
  for (const c of plan.calls) {
    try {
      into.push({ ok: true, value: await client.callTool(c) });
    } catch (e) {
      into.push({ ok: false, error: String(e?.message ?? e) });
    }
  }
};
await call(out.before);
const token = provider.stored.access_token;
await new Promise((resolve) => setTimeout(resolve, plan.expire_after_ms));
await call(out.after);
out.refreshed = provider.stored.access_token !== token;
out.saved = provider.saved;
out.scope = provider.stored.scope;
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
