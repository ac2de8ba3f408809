"use client";

import type { FormEvent } from "react";
import { FormSubmit } from "./auth-form";
import { authClient, reloadTo } from "./client";
import { useAuthAction } from "./use-auth-action";

/** A new team with the user as its owner; the browser then works in it. */
export function CreateTeamForm() {
  const { pending, error, run } = useAuthAction();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("name")).trim();
    // The slug is required by better-auth and unique; Parley never shows it.
    void run(
      true,
      () => authClient.organization.create({ name, slug: crypto.randomUUID() }),
      () => reloadTo("/"),
    );
  }
  return (
    <form onSubmit={submit} className="space-y-3" data-testid="create-team-form">
      <label className="block space-y-1.5">
        <span className="text-sm font-medium text-zinc-700">Team name</span>
        <input
          name="name"
          required
          maxLength={100}
          className="block h-10 w-full rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600"
        />
      </label>
      <FormSubmit error={error} pending={pending}>
        Create team
      </FormSubmit>
    </form>
  );
}
