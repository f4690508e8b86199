import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // The product is served on localhost only; it never needs the X-Powered-By banner.
  poweredByHeader: false,
  // Keep build output out of the user's data folder and separate from dev output.
  distDir: ".next",
  // fs, crypto and child processes are used by the store; keep them out of any bundle.
  serverExternalPackages: ["yaml"],
};

export default nextConfig;
