// An authorization server for folio's OAuth end-to-end test: oidc-provider
// on loopback with what MCP clients use (RFC 8414 metadata, dynamic client
// registration, the authorization code flow with PKCE, refresh tokens,
// resource indicators) and what folio uses (introspection, revocation,
// client credentials). Its login and consent screens are oidc-provider's
// own, which the client script fills in over HTTP.
//
//   node idp.mjs RESOURCES TTL_SECONDS
//
// RESOURCES are the resource URLs of the folios it serves, comma-separated
// (the first is the default): tokens for them are JWTs (ES256, typ at+jwt)
// with folio's scopes, those of the confidential client "opaque" are
// opaque. The clients "folio" (introspection), "ci" and "gateway" (client
// credentials) have the secret "s3cret". Access tokens live TTL_SECONDS.
// It prints {"issuer": "http://127.0.0.1:PORT"} once listening, and logs
// each token it issues to standard error.
import { createServer } from "node:http";
import { generateKeyPairSync } from "node:crypto";
import Provider from "oidc-provider";

const [resourceArg, ttlArg] = process.argv.slice(2);
const resources = resourceArg.split(",");
const ttl = Number(ttlArg || 3600);
const scopes = "folio:read folio:tools";

const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const jwk = { ...privateKey.export({ format: "jwk" }), kid: "es1", alg: "ES256", use: "sig" };

const server = createServer();
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [jwk] },
  clients: [
    { client_id: "folio", client_secret: "s3cret", token_endpoint_auth_method: "client_secret_basic", grant_types: [], response_types: [], redirect_uris: [] },
    { client_id: "ci", client_secret: "s3cret", token_endpoint_auth_method: "client_secret_basic", grant_types: ["client_credentials"], response_types: [], redirect_uris: [] },
    { client_id: "gateway", client_secret: "s3cret", token_endpoint_auth_method: "client_secret_basic", grant_types: ["client_credentials"], response_types: [], redirect_uris: [] },
    { client_id: "opaque", client_secret: "s3cret", token_endpoint_auth_method: "client_secret_basic", grant_types: ["client_credentials"], response_types: [], redirect_uris: [] },
  ],
  scopes: ["openid", "offline_access", ...scopes.split(" ")],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resources[0],
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator, client) => {
        if (!resources.includes(indicator)) {
          throw new Error(`unknown resource ${indicator}`);
        }
        const info = { scope: scopes, audience: indicator, accessTokenTTL: ttl };
        if (client.clientId === "opaque") {
          return { ...info, accessTokenFormat: "opaque" };
        }
        return { ...info, accessTokenFormat: "jwt", jwt: { sign: { alg: "ES256" } } };
      },
    },
  },
  // Every authorization code grant gets a refresh token, with or
  // without offline_access.
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed("refresh_token"),
  pkce: { required: () => true },
  ttl: { AccessToken: ttl, ClientCredentials: ttl },
  findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  // Loopback redirect URIs over http, as native clients use.
  clientDefaults: { token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], id_token_signed_response_alg: "ES256" },
});
provider.proxy = false;
for (const event of ["access_token.issued", "client_credentials.issued"]) {
  provider.on(event, (token) => process.stderr.write(`${event} ${token.clientId} ${token.accountId ?? ""}\n`));
}
provider.on("grant.success", (ctx) => process.stderr.write(`grant.success ${ctx.oidc.params.grant_type}\n`));
provider.on("server_error", (ctx, err) => process.stderr.write(`server_error ${err.stack}\n`));
server.on("request", provider.callback());
process.stdout.write(JSON.stringify({ issuer }) + "\n");
