"use client";

import { useMutation } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import { providerLabel } from "@/lib/models";
import type { AppRouter } from "@/server/trpc/router";

export type ProviderView = inferRouterOutputs<AppRouter>["provider"]["overview"]["providers"][number];

const INPUT =
  "h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";

/**
 * Setting a provider's key (a team secret: the field starts empty and is cleared once
 * saved) and base URL, and the test button: one cheap call whose result is shown.
 */
export function ProviderKeyForm({ view, onSaved }: { view: ProviderView; onSaved: () => void }) {
  const trpc = useTRPC();
  const [testing, setTesting] = useState(false);
  const save = useMutation(trpc.provider.setKey.mutationOptions({ onSuccess: () => onSaved() }));
  const test = useMutation(trpc.provider.test.mutationOptions());
  const label = providerLabel(view.provider);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const key = String(data.get("key") ?? "");
    const baseUrl = String(data.get("baseUrl") ?? "").trim();
    save.mutate({ provider: view.provider, ...(key ? { key } : {}), baseUrl: baseUrl || null }, { onSuccess: () => form.reset() });
  }

  return (
    <form onSubmit={submit} className="mt-2 space-y-2" data-testid="provider-key-form" data-provider={view.provider}>
      <div className="flex flex-wrap items-center gap-2">
        <input
          type="password"
          name="key"
          aria-label={`${label} API key`}
          placeholder={view.key ? "new key (leave empty to keep)" : "API key"}
          autoComplete="off"
          spellCheck={false}
          className={`${INPUT} min-w-56 flex-1 font-mono`}
          data-testid="provider-key"
        />
        <input
          name="baseUrl"
          aria-label={`${label} base URL`}
          placeholder={view.provider === "compatible" ? "https://openrouter.ai/api/v1" : "base URL (optional)"}
          defaultValue={view.baseUrl ?? ""}
          className={`${INPUT} min-w-56 flex-1 font-mono`}
          data-testid="provider-base-url"
        />
        <Button type="submit" variant="primary" disabled={save.isPending} data-testid="provider-save">
          {save.isPending ? <Spinner /> : null}
          Save
        </Button>
        <Button
          disabled={view.source === "none" || test.isPending}
          onClick={() => {
            setTesting(true);
            test.mutate({ provider: view.provider });
          }}
          data-testid="provider-test"
        >
          {test.isPending ? <Spinner /> : null}
          Test
        </Button>
      </div>
      <ErrorLine error={save.error} />
      {testing && test.data ? (
        <p role="status" data-testid="provider-test-result" className={`text-sm ${test.data.ok ? "text-emerald-700" : "text-red-600"}`}>
          {test.data.ok ? `Works: ${test.data.model} answered in ${test.data.ms} ms.` : `Failed (${test.data.model}): ${test.data.error}`}
        </p>
      ) : null}
      <ErrorLine error={test.error} />
    </form>
  );
}
