"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { AccountMenu, SignInLink } from "@/components/auth/account-menu";
import { useKeepSignedIn } from "@/components/auth/use-keep-signed-in";
import type { SignedIn } from "@/server/auth/member";
import { MobileMenu } from "./mobile-menu";
import type { Theme } from "./theme";
import { ThemeSwitch } from "./theme-switch";

const NAV = [
  { href: "/", label: "Sessions", match: (path: string) => path === "/" || path.startsWith("/sessions") },
  { href: "/dashboard", label: "Dashboard", match: (path: string) => path.startsWith("/dashboard") },
  { href: "/shares", label: "Shared links", match: (path: string) => path.startsWith("/shares") },
  { href: "/team", label: "Team", match: (path: string) => path.startsWith("/team") },
];

/**
 * `account`: who is signed in (from the root layout), null when nobody is; `theme`: the
 * theme the page was rendered with. From the `lg` width up the navigation and the account
 * controls sit in the bar; below it (phones, tablets) they are in a drawer behind "Menu".
 */
export function Header({ account, theme }: { account: SignedIn | null; theme: Theme }) {
  const pathname = usePathname();
  const showNav = !pathname.startsWith("/share/") && Boolean(account?.team);
  return (
    <header className="sticky top-0 z-30 border-b border-zinc-200/80 bg-white/85 backdrop-blur">
      <div className="mx-auto flex h-14 max-w-5xl items-center gap-6 px-4 group-has-[[data-wide-layout]]/page:max-w-7xl sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded-md focus-visible:outline-2 focus-visible:outline-indigo-600">
          <Logo />
          <span className="text-[15px] font-semibold tracking-tight text-zinc-900">Parley</span>
        </Link>
        {account ? (
          <SignedInControls account={account} theme={theme} pathname={pathname} showNav={showNav} />
        ) : (
          <div className="ml-auto flex items-center gap-3">
            <ThemeSwitch initial={theme} />
            <SignInLink />
          </div>
        )}
      </div>
    </header>
  );
}

function SignedInControls({ account, theme, pathname, showNav }: { account: SignedIn; theme: Theme; pathname: string; showNav: boolean }) {
  useKeepSignedIn();
  return (
    <>
      {showNav ? <MainNav pathname={pathname} className="hidden items-center gap-1 lg:flex" /> : null}
      <div className="ml-auto hidden min-w-0 items-center gap-3 lg:flex">
        <ThemeSwitch initial={theme} />
        <AccountMenu account={account} />
      </div>
      <MobileMenu className="ml-auto lg:hidden">
        {showNav ? <MainNav pathname={pathname} className="flex flex-col gap-1" /> : null}
        <div className="border-t border-zinc-200 pt-4">
          <AccountMenu account={account} stacked />
        </div>
        <div className="border-t border-zinc-200 pt-4">
          <ThemeSwitch initial={theme} showLabels />
        </div>
      </MobileMenu>
    </>
  );
}

/** The main navigation (the header's on wide screens, the menu's on narrow ones: `className` lays it out). */
function MainNav({ pathname, className }: { pathname: string; className: string }) {
  return (
    <nav aria-label="Main" className={className}>
      {NAV.map((item) => {
        const active = item.match(pathname);
        return (
          <Link
            key={item.href}
            href={item.href}
            aria-current={active ? "page" : undefined}
            className={`rounded-md px-2.5 py-1.5 text-sm font-medium transition-colors ${active ? "bg-zinc-100 text-zinc-900" : "text-zinc-600 hover:text-zinc-900"}`}
          >
            {item.label}
          </Link>
        );
      })}
    </nav>
  );
}

function Logo() {
  return (
    <span className="grid size-7 place-items-center rounded-lg bg-gradient-to-br from-indigo-500 to-violet-600 text-white shadow-sm" aria-hidden="true">
      <svg viewBox="0 0 20 20" className="size-4" fill="currentColor">
        <path d="M3 5.5A2.5 2.5 0 0 1 5.5 3h9A2.5 2.5 0 0 1 17 5.5v5a2.5 2.5 0 0 1-2.5 2.5H9l-3.6 3.1A.6.6 0 0 1 4.4 15.6V13A2.5 2.5 0 0 1 3 10.8V5.5z" />
      </svg>
    </span>
  );
}
