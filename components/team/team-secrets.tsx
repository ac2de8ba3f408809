"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { ErrorLine } from "@/components/ui/feedback";
import { RelativeTime } from "@/components/ui/relative-time";
import { SECRET_KIND_LABELS } from "@/lib/secrets";
import { SecretForm, type SecretInfo } from "./secret-form";
import { AdminsOnly, Section } from "./section";

/**
 * The team's secrets (git credentials, provider keys, tool-server headers): names, kinds
 * and who set them when. Values are write-only — never shown, never pre-filled; owners and
 * admins set, replace and remove them, members only see the list (the server refuses
 * anyone else).
 */
export function TeamSecrets({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const secrets = useQuery(trpc.secret.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.secret.list.queryKey() });
  const remove = useMutation(trpc.secret.remove.mutationOptions({ onSettled: () => void invalidate() }));
  const [replacing, setReplacing] = useState<SecretInfo>();
  const [removing, setRemoving] = useState<SecretInfo>();

  return (
    <Section
      title="Secrets"
      testId="team-secrets"
      description="Credentials the server itself uses, such as a git token to clone and push. They are stored encrypted and never shown again: not here, not to the agent, not in any session."
    >
      <ErrorLine error={secrets.error} />
      <ul className="divide-y divide-zinc-100" data-testid="secrets">
        {(secrets.data ?? []).map((secret) => (
          <li key={secret.name} className="flex flex-wrap items-center gap-3 py-2.5" data-testid="secret" data-name={secret.name}>
            <div className="min-w-0 flex-1">
              <p className="truncate font-mono text-sm font-medium text-zinc-900">{secret.name}</p>
              <p className="text-xs text-zinc-500" data-testid="secret-set-by">
                Set by {secret.updatedBy?.name ?? "a former member"}, <RelativeTime time={secret.updatedAt} />
              </p>
            </div>
            <Badge>{SECRET_KIND_LABELS[secret.kind]}</Badge>
            {isAdmin ? (
              <>
                <Button size="sm" onClick={() => setReplacing(secret)} aria-label={`Replace ${secret.name}`}>
                  Replace
                </Button>
                <Button size="sm" variant="ghost" onClick={() => setRemoving(secret)} aria-label={`Remove ${secret.name}`}>
                  Remove
                </Button>
              </>
            ) : null}
          </li>
        ))}
        {secrets.isSuccess && secrets.data.length === 0 ? <li className="py-2.5 text-sm text-zinc-500">No secret yet.</li> : null}
      </ul>
      <ErrorLine error={remove.error} className="mt-2 text-sm text-red-600" />
      {isAdmin ? (
        <SecretForm key={replacing?.name ?? ""} replacing={replacing} onDone={() => setReplacing(undefined)} onSaved={() => void invalidate()} />
      ) : (
        <AdminsOnly testId="secrets-read-only" may="set or remove secrets" />
      )}
      <ConfirmDialog
        open={removing !== undefined}
        title={`Remove the secret “${removing?.name ?? ""}”?`}
        confirmLabel="Remove"
        pending={remove.isPending}
        onCancel={() => setRemoving(undefined)}
        onConfirm={() => {
          if (!removing) return;
          remove.mutate({ name: removing.name }, { onSettled: () => setRemoving(undefined) });
        }}
      >
        Anything that uses it, such as a project’s git remote, stops working until it is set again.
      </ConfirmDialog>
    </Section>
  );
}
