#!/usr/bin/env node
// folio's npm entry point: runs the folio binary of the platform package
// npm installed for this machine (@folio-mcp/folio-<os>-<cpu>, an optional
// dependency of this package chosen by its os and cpu fields), with this
// process's arguments, standard streams and environment; passes on the
// signals it gets and exits as the binary did. Plain Node.js, no
// dependencies, nothing downloaded.
"use strict";

const { spawn } = require("node:child_process");

// The platforms a package is published for (packaging/npm/pack.sh). windows (win32,
// bin/folio.exe) comes when folio builds there.
const platforms = {
  "linux x64": "@folio-mcp/folio-linux-x64",
  "linux arm64": "@folio-mcp/folio-linux-arm64",
  "darwin x64": "@folio-mcp/folio-darwin-x64",
  "darwin arm64": "@folio-mcp/folio-darwin-arm64",
};

function binaryPath() {
  const key = `${process.platform} ${process.arch}`;
  const pkg = platforms[key];
  if (!pkg) {
    fail(`folio: no build for ${key} (there are: ${Object.keys(platforms).join(", ")}); see https://github.com/folio-mcp/folio for other ways to install it`);
  }
  try {
    return require.resolve(`${pkg}/bin/folio`);
  } catch (err) {
    fail(`folio: the package ${pkg}, which holds the binary for ${key}, is not installed ` +
      `(optional dependencies turned off, with --no-optional or --omit=optional?): install @folio-mcp/folio with them, or ${pkg} itself`);
  }
}

function fail(message) {
  process.stderr.write(message + "\n");
  process.exit(1);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
const signals = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
for (const sig of signals) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => fail(`folio: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so that the caller sees what folio saw.
    for (const sig of signals) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
