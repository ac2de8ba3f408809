"use client";

import { FormSubmit } from "./auth-form";
import { authClient, reloadTo } from "./client";
import { useAuthForm } from "./use-auth-action";

/** A new team with the user as its owner; the browser then works in it. */
export function CreateTeamForm() {
  const { pending, error, onSubmit } = useAuthForm(
    // The slug is required by better-auth and unique; Parley never shows it.
    (form) => authClient.organization.create({ name: String(form.get("name")).trim(), slug: crypto.randomUUID() }),
    () => reloadTo("/"),
  );
  return (
    <form onSubmit={onSubmit} className="space-y-3" data-testid="create-team-form">
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
