import type { ReactNode } from "react";
import { ThemeSwitch } from "@/components/ui/theme-switch";
import type { Theme } from "@/components/ui/theme";

/**
 * The frame of a share page (the root layout uses it for /share/…): the app's bar with
 * the theme switch only — none of the members' providers, navigation or shortcuts, so a
 * viewer's browser loads none of their JavaScript (no tRPC, no better-auth). Links out of
 * it are plain links: the members' pages load with their own frame.
 */
export function ShareShell({ theme, mainId, children }: { theme: Theme; mainId: string; children: ReactNode }) {
  return (
    <>
      <a
        href={`#${mainId}`}
        className="sr-only rounded-md bg-white px-3 py-2 text-sm font-medium text-indigo-700 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50"
      >
        Skip to content
      </a>
      <header className="sticky top-0 z-30 border-b border-zinc-200/80 bg-white/85 backdrop-blur">
        <div className="mx-auto flex h-14 max-w-5xl items-center gap-6 px-4 sm:px-6">
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- the members' pages have their own frame: a full load */}
          <a href="/" className="flex items-center gap-2 rounded-md focus-visible:outline-2 focus-visible:outline-indigo-600">
            <span className="grid size-7 place-items-center rounded-lg bg-gradient-to-br from-indigo-500 to-violet-600 text-white shadow-sm" aria-hidden="true">
              <svg viewBox="0 0 20 20" className="size-4" fill="currentColor">
                <path d="M3 5.5A2.5 2.5 0 0 1 5.5 3h9A2.5 2.5 0 0 1 17 5.5v5a2.5 2.5 0 0 1-2.5 2.5H9l-3.6 3.1A.6.6 0 0 1 4.4 15.6V13A2.5 2.5 0 0 1 3 10.8V5.5z" />
              </svg>
            </span>
            <span className="text-[15px] font-semibold tracking-tight text-zinc-900">Parley</span>
          </a>
          <div className="ml-auto flex items-center gap-3">
            <ThemeSwitch initial={theme} />
          </div>
        </div>
      </header>
      {children}
    </>
  );
}
