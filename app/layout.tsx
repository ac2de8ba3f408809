import type { Metadata, Viewport } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { THEME_COOKIE, parseTheme } from "@/components/ui/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Parley", template: "%s · Parley" },
  description: "AI agent sessions for teams",
};

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#fafafa" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
  width: "device-width",
  initialScale: 1,
  // The on-screen keyboard shrinks the layout viewport, so the composer stays above it.
  interactiveWidget: "resizes-content",
};

/**
 * The document only. Each kind of page brings its own frame, with only the client code it
 * needs: the members' pages app/(members)/layout.tsx (access check, tRPC, header,
 * shortcuts), a share link app/share/layout.tsx (the bar and the theme switch).
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  // The theme is rendered into the HTML (app/globals.css reads data-theme): no flash of the wrong one.
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={theme}>
      <body className="group/page min-h-dvh">{children}</body>
    </html>
  );
}
