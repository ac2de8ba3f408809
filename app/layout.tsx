import type { Metadata, Viewport } from "next";
import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { ShareShell } from "@/components/share/share-shell";
import { TRPCReactProvider } from "@/components/trpc/client";
import { LiveAnnouncer } from "@/components/ui/announce";
import { Header } from "@/components/ui/header";
import { KeyboardShortcuts } from "@/components/ui/shortcut-help";
import { MAIN_ID, SkipLinks } from "@/components/ui/skip-links";
import { THEME_COOKIE, parseTheme } from "@/components/ui/theme";
import { checkPageAccess } from "@/server/auth/page";
import { PATH_HEADER } from "@/server/auth/paths";
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

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page's server-side access check (server/auth/page.ts): sign-in and team membership.
  const account = await checkPageAccess();
  // The theme is rendered into the HTML (app/globals.css reads data-theme): no flash of the wrong one.
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  // A share page (public, read by people with only its link) gets a frame of its own, with
  // none of the members' client code: its JavaScript stays small (components/share/share-shell.tsx).
  if ((await headers()).get(PATH_HEADER)?.startsWith("/share/")) {
    return (
      <html lang="en" data-theme={theme}>
        <body className="group/page min-h-dvh">
          <ShareShell theme={theme} mainId={MAIN_ID}>
            <main id={MAIN_ID} tabIndex={-1} className="mx-auto max-w-5xl px-4 pt-6 pb-24 outline-none sm:px-6 sm:pt-8">
              {children}
            </main>
          </ShareShell>
        </body>
      </html>
    );
  }
  return (
    <html lang="en" data-theme={theme}>
      <body className="group/page min-h-dvh">
        <TRPCReactProvider>
          <SkipLinks />
          <Header account={account} theme={theme} />
          {/*
            A chat page (data-chat-layout) fills the screen down to its composer: no padding
            below. A wide page (data-wide-layout: the dashboard's table) gets a wider column.
            On wide screens an open Changes panel (data-changes-open, 32rem at the right) has
            the column move aside for it.
          */}
          <main
            id={MAIN_ID}
            tabIndex={-1}
            className="mx-auto max-w-5xl px-4 pt-6 pb-24 outline-none has-[[data-chat-layout]]:pb-0 has-[[data-wide-layout]]:max-w-7xl sm:px-6 sm:pt-8 xl:has-[[data-changes-open]]:mr-[32rem]"
          >
            {children}
          </main>
          <KeyboardShortcuts />
          <LiveAnnouncer />
        </TRPCReactProvider>
      </body>
    </html>
  );
}
