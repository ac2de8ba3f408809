import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/trpc/client";
import { LiveAnnouncer } from "@/components/ui/announce";
import { Header } from "@/components/ui/header";
import { KeyboardShortcuts } from "@/components/ui/shortcut-help";
import { MAIN_ID, SkipLinks } from "@/components/ui/skip-links";
import { THEME_COOKIE, parseTheme } from "@/components/ui/theme";
import { checkPageAccess } from "@/server/auth/page";

/**
 * The members' frame — every page but a share link's (app/share has its own): the tRPC
 * client, the header with navigation and account, the shortcuts, the live announcer. A
 * route group, so that a share page's JavaScript holds none of it (e2e/weight.spec.ts).
 * A new page for members goes in this folder.
 */
export default async function MembersLayout({ children }: { children: ReactNode }) {
  // Every page's server-side access check (server/auth/page.ts): sign-in and team membership.
  const account = await checkPageAccess();
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <TRPCReactProvider>
      <SkipLinks />
      <Header account={account} theme={theme} />
      {/*
        A chat page (data-chat-layout) fills the screen down to its composer: no padding
        below. A wide page (data-wide-layout: the dashboard's table) gets a wider column.
        On wide screens an open Changes panel (data-changes-open, 32rem at the right) has
        the column move aside for it, and so does the session sidebar at the left
        (data-sidebar-open: 16rem; data-sidebar-collapsed: a 2.5rem rail).
      */}
      <main
        id={MAIN_ID}
        tabIndex={-1}
        className="mx-auto max-w-5xl px-4 pt-6 pb-24 outline-none has-[[data-chat-layout]]:pb-0 has-[[data-wide-layout]]:max-w-7xl sm:px-6 sm:pt-8 xl:has-[[data-changes-open]]:mr-[32rem] lg:has-[[data-sidebar-open]]:ml-[max(16rem,calc(50%-32rem))] lg:has-[[data-sidebar-collapsed]]:ml-[max(2.5rem,calc(50%-32rem))]"
      >
        {children}
      </main>
      <KeyboardShortcuts />
      <LiveAnnouncer />
    </TRPCReactProvider>
  );
}
