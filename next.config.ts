import type { NextConfig } from "next";
import { MAX_BODY_LIMIT } from "./lib/input-limits/body";

const nextConfig: NextConfig = {
  // The product is served on localhost only; it never needs the X-Powered-By banner.
  poweredByHeader: false,
  // Nor gzip: on localhost compression saves no time, and it would cost CPU on every event of
  // every SSE stream (each one compressed and flushed on its own).
  compress: false,
  // Keep build output out of the user's data folder and separate from dev output.
  distDir: ".next",
  // Required by Node from node_modules instead of bundled, so each is loaded once per process
  // whichever bundle reaches it (the server's core leaves every package to Node too,
  // scripts/build-core.mjs). Bundled, each route chunk that reached them carried its own copy:
  // gpt-tokenizer alone was 1.7 MB of each. See "Loaded once per process?" in docs/architecture.md.
  serverExternalPackages: ["yaml", "better-auth", "@modelcontextprotocol/sdk", "gpt-tokenizer", "openai", "gray-matter", "picomatch", "minisearch", "ignore", "fflate"],
  experimental: {
    // Next buffers each request body for the proxy; never more than the largest route limit (one
    // byte more, so a body cut there still reads as too large and is answered 413).
    proxyClientMaxBodySize: MAX_BODY_LIMIT + 1,
  },
};

export default nextConfig;
