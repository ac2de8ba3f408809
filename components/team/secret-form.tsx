"use client";

import { useMutation } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { type FormEvent, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import { SECRET_KINDS, SECRET_KIND_LABELS, SECRET_NAME_PATTERN, SECRET_NAME_RULE, type SecretKind } from "@/lib/secrets";
import type { AppRouter } from "@/server/trpc/router";

/** What the Team page knows of a secret: never its value. */
export type SecretInfo = inferRouterOutputs<AppRouter>["secret"]["list"][number];

const INPUT =
  "h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset placeholder:text-zinc-400 focus:ring-2 focus:ring-indigo-600";

/**
 * Setting a secret, or replacing one (`replacing`: its name is fixed). The value field
 * starts empty every time and is cleared once saved: nothing ever reads a value back. An
 * SSH key spans lines, so it gets a masked text area instead of a password field.
 */
export function SecretForm({ replacing, onDone, onSaved }: { replacing: SecretInfo | undefined; onDone: () => void; onSaved: () => void }) {
  const trpc = useTRPC();
  const [kind, setKind] = useState<Exclude<SecretKind, "oauth">>(replacing?.kind === "oauth" || !replacing ? "git-token" : replacing.kind);
  const save = useMutation(trpc.secret.set.mutationOptions({ onSuccess: () => onSaved() }));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const name = replacing?.name ?? String(data.get("name")).trim();
    save.mutate(
      { name, kind, value: String(data.get("value")) },
      {
        onSuccess: () => {
          form.reset();
          onDone();
        },
      },
    );
  }

  const valueProps = { name: "value", required: true, "aria-label": "Value", autoComplete: "off", spellCheck: false, "data-testid": "secret-value" } as const;
  return (
    <form onSubmit={submit} className="mt-4 space-y-2 border-t border-zinc-100 pt-4" data-testid="secret-form">
      {replacing ? (
        <p className="text-sm text-zinc-700">
          New value for <span className="font-mono font-medium">{replacing.name}</span>
        </p>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        {replacing ? null : (
          <input
            name="name"
            required
            pattern={SECRET_NAME_PATTERN}
            title={SECRET_NAME_RULE}
            placeholder="name, e.g. github-token"
            aria-label="Secret name"
            maxLength={64}
            className={`${INPUT} w-56 font-mono`}
          />
        )}
        <select aria-label="Kind" value={kind} onChange={(event) => setKind(SECRET_KINDS.filter((option) => option !== "oauth").find((option) => option === event.target.value) ?? kind)} className={INPUT}>
          {SECRET_KINDS.filter((option) => option !== "oauth").map((option) => (
            <option key={option} value={option}>
              {SECRET_KIND_LABELS[option]}
            </option>
          ))}
        </select>
        {kind === "ssh-key" ? null : <input type="password" {...valueProps} placeholder="value" className={`${INPUT} min-w-56 flex-1 font-mono`} />}
      </div>
      {kind === "ssh-key" ? (
        <textarea
          {...valueProps}
          rows={5}
          placeholder="-----BEGIN OPENSSH PRIVATE KEY-----"
          className="block w-full rounded-lg border-0 bg-white px-3 py-2 font-mono text-xs text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset [-webkit-text-security:disc] focus:ring-2 focus:ring-indigo-600"
        />
      ) : null}
      <div className="flex items-center gap-2">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          {save.isPending ? <Spinner /> : null}
          {replacing ? "Replace" : "Save"}
        </Button>
        {replacing ? <Button onClick={onDone}>Cancel</Button> : null}
      </div>
      <ErrorLine error={save.error} />
    </form>
  );
}
