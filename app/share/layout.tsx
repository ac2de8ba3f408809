import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { ShareShell } from "@/components/share/share-shell";
import { THEME_COOKIE, parseTheme } from "@/components/ui/theme";

/** A share link's frame (components/share/share-shell.tsx): none of the members' client code. */
export default async function ShareLayout({ children }: { children: ReactNode }) {
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <ShareShell theme={theme} mainId="main">
      <main id="main" tabIndex={-1} className="mx-auto max-w-5xl px-4 pt-6 pb-24 outline-none sm:px-6 sm:pt-8">
        {children}
      </main>
    </ShareShell>
  );
}
