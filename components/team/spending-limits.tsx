"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";

const INPUT =
  "h-9 w-32 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";

const amount = (value: FormDataEntryValue | null): number | null => {
  const text = String(value ?? "").trim();
  return text === "" ? null : Number(text);
};

/** The team's monthly spending limits (USD; empty: none): at 80 % a notice, at 100 % new prompts are refused. */
export function SpendingLimits({ limits, isAdmin, onSaved }: { limits: { team: number | null; member: number | null }; isAdmin: boolean; onSaved: () => void }) {
  const trpc = useTRPC();
  const save = useMutation(trpc.provider.setLimits.mutationOptions({ onSuccess: () => onSaved() }));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    save.mutate({ team: amount(data.get("team")), member: amount(data.get("member")) });
  }

  return (
    <form onSubmit={submit} data-testid="spending-limits">
      <h3 className="text-sm font-medium text-zinc-900">Monthly spending limits</h3>
      <p className="text-xs text-zinc-500">In US dollars per calendar month (UTC). At 80 % members see a notice; at 100 % new prompts are refused until next month.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <label className="flex items-center gap-2 text-sm text-zinc-700">
          Team $
          <input name="team" type="number" min="0" step="0.01" defaultValue={limits.team ?? ""} disabled={!isAdmin} placeholder="no limit" className={INPUT} data-testid="limit-team" />
        </label>
        <label className="flex items-center gap-2 text-sm text-zinc-700">
          Each member $
          <input name="member" type="number" min="0" step="0.01" defaultValue={limits.member ?? ""} disabled={!isAdmin} placeholder="no limit" className={INPUT} data-testid="limit-member" />
        </label>
        {isAdmin ? (
          <Button type="submit" variant="primary" disabled={save.isPending} data-testid="save-limits">
            {save.isPending ? <Spinner /> : null}
            Save limits
          </Button>
        ) : null}
      </div>
      <ErrorLine error={save.error} className="mt-1 text-sm text-red-600" />
    </form>
  );
}
