"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { ErrorLine } from "@/components/ui/feedback";
import { RelativeTime } from "@/components/ui/relative-time";
import { providerLabel } from "@/lib/models";
import { ProviderKeyForm, type ProviderView } from "./provider-key-form";
import { Section } from "./section";
import { SpendingLimits } from "./spending-limits";
import { TeamModels } from "./team-models";

const SOURCE: Record<ProviderView["source"], string> = { team: "Team key", server: "Server key", none: "No key" };

/**
 * The team's providers (SPEC §12): each provider's key — a team secret, write-only, "set by
 * / at" — or the operator's key when the server offers it; a test button; the models the
 * team enables, its default and small model; its monthly limits. Members see it; owners
 * and admins change it (the server refuses anyone else).
 */
export function TeamProviders({ isAdmin }: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const overview = useQuery(trpc.provider.overview.queryOptions());
  // Kept here: a save mounts the models' form again (it is keyed by the saved choice).
  const [modelsSaved, setModelsSaved] = useState(false);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.provider.overview.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.secret.list.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.model.list.queryKey() });
  };
  const data = overview.data;
  return (
    <Section
      title="Providers"
      testId="team-providers"
      description="The model providers this team uses. Keys are stored encrypted as team secrets and never shown again; the models you enable are the ones members can pick."
    >
      <ErrorLine error={overview.error} />
      {data ? (
        <div className="space-y-5">
          <ul className="divide-y divide-zinc-100">
            {data.providers.map((view) => (
              <li key={view.provider} className="py-3" data-testid="provider" data-provider={view.provider} data-source={view.source}>
                <div className="flex flex-wrap items-center gap-2">
                  <span className="text-sm font-medium text-zinc-900">{providerLabel(view.provider)}</span>
                  <Badge tone={view.source === "none" ? "neutral" : "green"}>{SOURCE[view.source]}</Badge>
                  {view.key ? (
                    <span className="text-xs text-zinc-500" data-testid="provider-set-by">
                      Set by {view.key.updatedBy ?? "a former member"}, <RelativeTime time={view.key.updatedAt} />
                    </span>
                  ) : null}
                  {view.baseUrl ? <span className="font-mono text-xs text-zinc-500">{view.baseUrl}</span> : null}
                </div>
                {isAdmin ? <ProviderKeyForm view={view} onSaved={refresh} /> : null}
              </li>
            ))}
          </ul>
          {data.serverKeys === "none" ? <p className="text-xs text-zinc-500">This server does not offer its own keys: the team uses only the keys set here.</p> : null}
          <TeamModels
            key={JSON.stringify(data.choice)}
            catalog={data.catalog}
            choice={data.choice}
            agents={data.agents}
            isAdmin={isAdmin}
            saved={modelsSaved}
            onSaved={() => {
              setModelsSaved(true);
              refresh();
            }}
          />
          <SpendingLimits key={JSON.stringify(data.limits)} limits={data.limits} isAdmin={isAdmin} onSaved={refresh} />
        </div>
      ) : null}
    </Section>
  );
}
