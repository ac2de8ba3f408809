"use client";

import { useMutation } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import { byProvider, describeModel, providerLabel } from "@/lib/models";
import type { AppRouter } from "@/server/trpc/router";
import { AgentModels } from "./agent-models";

type Overview = inferRouterOutputs<AppRouter>["provider"]["overview"];
const keyOf = (m: { providerId: string; modelId: string }) => `${m.providerId}/${m.modelId}`;
const SELECT =
  "h-9 rounded-lg border-0 bg-white px-3 text-sm text-zinc-900 shadow-sm ring-1 ring-zinc-300 ring-inset focus:ring-2 focus:ring-indigo-600";

/** The models the team enables (from those its keys reach), its default and its small model (titles, compaction). */
/**
 * The team's models. Its parent keys it by the saved choice, so a save (and the refetch it
 * starts) mounts it again with what was stored: `saved` — kept by the parent — says that it
 * was just saved, until the admin changes something again.
 */
export function TeamModels({ catalog, choice, agents, isAdmin, saved, onSaved }: { catalog: Overview["catalog"]; choice: Overview["choice"]; agents: string[]; isAdmin: boolean; saved: boolean; onSaved: () => void }) {
  const trpc = useTRPC();
  const [edited, setEdited] = useState(false);
  const [enabled, setEnabled] = useState<string[]>(choice.enabled);
  const [defaultModel, setDefaultModel] = useState(choice.defaultModel ?? "");
  const [smallModel, setSmallModel] = useState(choice.smallModel ?? "");
  const [agentModels, setAgentModelsValue] = useState<Record<string, string>>(choice.agentModels);
  const edit =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      setEdited(true);
      set(value);
    };
  const setDefault = edit(setDefaultModel);
  const setSmall = edit(setSmallModel);
  const setAgentModels = edit(setAgentModelsValue);
  const save = useMutation(
    trpc.provider.setModels.mutationOptions({
      onSuccess: () => {
        setEdited(false);
        onSaved();
      },
    }),
  );
  const offered = enabled.length > 0 ? catalog.filter((m) => enabled.includes(keyOf(m))) : catalog;
  const toggle = (key: string, on: boolean) => {
    setEdited(true);
    setEnabled((list) => (on ? [...list, key] : list.filter((k) => k !== key)));
  };

  return (
    <div data-testid="team-models">
      <h3 className="text-sm font-medium text-zinc-900">Models</h3>
      <p className="text-xs text-zinc-500">None enabled: members may use every model listed. Prices are per million tokens (input / output).</p>
      <div className="mt-2 space-y-3">
        {byProvider(catalog).map((group) => (
          <fieldset key={group.providerId}>
            <legend className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">{providerLabel(group.providerId)}</legend>
            {group.models.map((m) => (
              <label key={keyOf(m)} className="flex items-center gap-2 py-0.5 text-sm text-zinc-800">
                <input type="checkbox" disabled={!isAdmin} checked={enabled.includes(keyOf(m))} onChange={(e) => toggle(keyOf(m), e.target.checked)} data-testid="enable-model" data-model={keyOf(m)} />
                <span>{m.name}</span>
                <span className="text-xs text-zinc-500">{describeModel(m)}</span>
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        {(
          [
            ["Default model", defaultModel, setDefault, "default-model"],
            ["Small model", smallModel, setSmall, "small-model"],
          ] as const
        ).map(([label, value, set, testId]) => (
          <label key={label} className="flex max-w-full min-w-0 items-center gap-2 text-sm text-zinc-700">
            <span className="shrink-0">{label}</span>
            {/* A long model name must not widen a phone's page: the select shrinks and cuts it. */}
            <select value={value} disabled={!isAdmin} onChange={(e) => set(e.target.value)} className={`${SELECT} min-w-0 max-w-full flex-1`} data-testid={testId}>
              <option value="">Server default</option>
              {offered.map((m) => (
                <option key={keyOf(m)} value={keyOf(m)}>
                  {m.name} ({keyOf(m)})
                </option>
              ))}
            </select>
          </label>
        ))}
        {isAdmin ? (
          <Button variant="primary" disabled={save.isPending} onClick={() => save.mutate({ enabled, defaultModel: defaultModel || null, smallModel: smallModel || null, agentModels })} data-testid="save-models">
            {save.isPending ? <Spinner /> : null}
            Save models
          </Button>
        ) : null}
      </div>
      <AgentModels agents={agents} models={offered} value={agentModels} disabled={!isAdmin} onChange={setAgentModels} />
      {(saved || save.isSuccess) && !edited ? <p role="status" className="mt-1 text-sm text-emerald-700">Saved.</p> : null}
      <ErrorLine error={save.error} className="mt-1 text-sm text-red-600" />
    </div>
  );
}
