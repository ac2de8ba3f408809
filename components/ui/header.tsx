"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { AccountMenu, SignInLink } from "@/components/auth/account-menu";
import type { SignedIn } from "@/server/auth/member";

const NAV = [
  { href: "/", label: "Sessions", match: (path: string) => path === "/" || path.startsWith("/sessions") },
  { href: "/dashboard", label: "Dashboard", match: (path: string) => path.startsWith("/dashboard") },
  { href: "/shares", label: "Shared links", match: (path: string) => path.startsWith("/shares") },
  { href: "/team", label: "Team", match: (path: string) => path.startsWith("/team") },
];

/** `account`: who is signed in (from the root layout), null when nobody is. */
export function Header({ account }: { account: SignedIn | null }) {
  const pathname = usePathname();
  return (
    <header className="sticky top-0 z-30 border-b border-zinc-200/80 bg-white/85 backdrop-blur">
      <div className="mx-auto flex h-14 max-w-5xl items-center gap-6 px-4 sm:px-6">
        <Link href="/" className="flex items-center gap-2 rounded-md focus-visible:outline-2 focus-visible:outline-indigo-600">
          <Logo />
          <span className="text-[15px] font-semibold tracking-tight text-zinc-900">Parley</span>
        </Link>
        <nav aria-label="Main" className="flex items-center gap-1">
          {pathname.startsWith("/share/") || !account?.team ? null : NAV.map((item) => {
            const active = item.match(pathname);
            return (
              <Link
                key={item.href}
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={`rounded-md px-2.5 py-1.5 text-sm font-medium transition-colors ${
                  active ? "bg-zinc-100 text-zinc-900" : "text-zinc-500 hover:text-zinc-900"
                }`}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        {account ? <AccountMenu account={account} /> : <SignInLink />}
      </div>
    </header>
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
