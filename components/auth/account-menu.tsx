"use client";

import Link from "next/link";
import { useState } from "react";
import type { SignedIn } from "@/server/auth/member";
import { authErrorMessage, loadAuthClient, reloadTo } from "./reload";

const NEW_TEAM = "__new__";

/**
 * The team switcher (the active team is kept in the sign-in session), the user and
 * sign-out: in a row on the header's right side, or `stacked` in the phone menu.
 */
export function AccountMenu({ account, stacked = false }: { account: SignedIn; stacked?: boolean }) {
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);

  async function switchTeam(teamId: string) {
    if (teamId === NEW_TEAM) {
      reloadTo("/welcome");
      return;
    }
    setPending(true);
    setError(undefined);
    const result = await (await loadAuthClient()).organization.setActive({ organizationId: teamId });
    if (result.error) {
      setPending(false);
      setError(authErrorMessage(result.error));
      return;
    }
    // Pages show one team's data: start again from its session list.
    reloadTo("/");
  }

  async function signOut() {
    setPending(true);
    await (await loadAuthClient()).signOut();
    reloadTo("/sign-in");
  }

  return (
    <div className={stacked ? "flex flex-col gap-4 text-sm" : "flex min-w-0 items-center gap-3 text-sm"}>
      {account.team ? (
        <label className={stacked ? "flex flex-col gap-1.5" : "flex items-center gap-1.5"}>
          <span className={stacked ? "text-xs font-medium text-zinc-600" : "sr-only"}>Team</span>
          <select
            data-testid="team-switcher"
            value={account.team.id}
            disabled={pending}
            onChange={(event) => void switchTeam(event.target.value)}
            title={error}
            className={`h-8 truncate rounded-lg border-0 bg-white pr-7 pl-2.5 text-sm font-medium text-zinc-800 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600 ${stacked ? "w-full" : "max-w-44"}`}
          >
            {account.teams.map((team) => (
              <option key={team.id} value={team.id}>
                {team.name}
              </option>
            ))}
            <option value={NEW_TEAM}>New team…</option>
          </select>
        </label>
      ) : null}
      {stacked ? (
        <div className="min-w-0" data-testid="signed-in-user">
          <p className="truncate font-medium text-zinc-900">{account.user.name}</p>
          <p className="truncate text-xs text-zinc-600">{account.user.email}</p>
        </div>
      ) : (
        <span className="hidden max-w-40 truncate text-zinc-600 xl:inline" data-testid="signed-in-user" title={account.user.email}>
          {account.user.name}
        </span>
      )}
      <button
        type="button"
        onClick={() => void signOut()}
        disabled={pending}
        className={`rounded-md px-2 py-1 font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 disabled:opacity-50 ${stacked ? "self-start ring-1 ring-zinc-300 ring-inset" : ""}`}
      >
        Sign out
      </button>
      {error ? (
        <span role="alert" className="sr-only">
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** The header's right side for someone not signed in (on a share link, or the sign-in page). */
export function SignInLink() {
  return (
    <Link href="/sign-in" className="rounded-md px-2 py-1 text-sm font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900">
      Sign in
    </Link>
  );
}
