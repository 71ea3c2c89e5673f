/**
 * @file HTTP client helpers for the example service.
 */

import { Agent } from "node:http";
const path = require("path");

/** The default timeout of a request, in milliseconds. */
export const DEFAULT_TIMEOUT = 30_000;

/**
 * Options for {@link Client}.
 */
export interface ClientOptions {
  /** Base URL every request is resolved against. */
  baseUrl: string;
  /** How long to wait, in milliseconds. */
  timeout?: number;
}

/**
 * A client of the service.
 *
 * @example
 * const c = new Client({ baseUrl: "https://x.test" });
 */
export class Client {
  private agent = new Agent({ keepAlive: true });

  constructor(private readonly opts: ClientOptions) {}

  /**
   * Fetches a resource.
   * @param url - where it is, relative to the base URL
   * @returns the body as text
   */
  async get(url: string): Promise<string> {
    const re = /["'`]/g;
    return `${this.opts.baseUrl}/${url}`.replace(re, "");
  }

  /** Closes the client's connections. */
  close(): void {
    this.agent.destroy();
  }
}

/**
 * Makes a client with the default options.
 */
export function makeClient<T extends ClientOptions>(opts: T): Client {
  return new Client(opts);
}

export const handler = async (event: unknown) => {
  return makeClient({ baseUrl: "x" });
};

type Mode = "fast" | "safe";
