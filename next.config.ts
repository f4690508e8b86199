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
  // fs, crypto and child processes are used by the store; keep them out of any bundle.
  serverExternalPackages: ["yaml", "@modelcontextprotocol/sdk"],
  experimental: {
    // Next buffers each request body for the proxy; never more than the largest route limit (one
    // byte more, so a body cut there still reads as too large and is answered 413).
    proxyClientMaxBodySize: MAX_BODY_LIMIT + 1,
  },
};

export default nextConfig;
