// node resolve.mjs MANIFEST EXTENSION_DIR USER_CONFIG_JSON HOME: the
// command an MCP Bundle's manifest resolves to, as a desktop client makes
// it: @anthropic-ai/mcpb's getMcpConfigForManifest, with ${__dirname} the
// unpacked bundle, the user's answers to user_config (a multiple value
// expanded into separate arguments), and the system folders under HOME.
// Prints {command, args, env} as JSON; exits 3 when required user_config
// is missing (the client does not start the server then).
import { readFileSync } from "node:fs";
import { join, sep } from "node:path";

import { getMcpConfigForManifest } from "@anthropic-ai/mcpb/node";

const [manifestPath, extensionPath, userConfig, home] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath,
  systemDirs: {
    HOME: home,
    DESKTOP: join(home, "Desktop"),
    DOCUMENTS: join(home, "Documents"),
    DOWNLOADS: join(home, "Downloads"),
  },
  userConfig: JSON.parse(userConfig),
  pathSeparator: sep,
  logger: console,
});
if (!config) {
  console.error("no configuration: required user_config is missing");
  process.exit(3);
}
process.stdout.write(JSON.stringify(config) + "\n");
