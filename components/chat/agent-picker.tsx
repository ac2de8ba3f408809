"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { announce } from "@/components/ui/announce";
import { ErrorLine } from "@/components/ui/feedback";
import { chooseAgent, cycleAgent } from "./agent-choice";

export interface AgentOption {
  name: string;
  description?: string | undefined;
}

export interface AgentChoice {
  /** The agents on offer (build, plan, the configuration's and the repository's primary agents); empty until loaded. */
  agents: AgentOption[];
  selected: string | undefined;
  select: (name: string) => void;
  /** Tab / Shift+Tab in the empty message box: the next (previous) agent, announced. */
  cycle: (step: 1 | -1) => void;
  error: string | undefined;
}

/** The agents a member may pick for the session (agent.list) and the one picked, kept while the page is open. */
export function useAgentChoice(sessionId: string, lastUsed: string | undefined, session: string | undefined): AgentChoice {
  const trpc = useTRPC();
  const listed = useQuery(trpc.agent.list.queryOptions({ sessionId }, { staleTime: 60_000 }));
  const [picked, setPicked] = useState<{ sessionId: string; name: string }>();
  const agents: AgentOption[] = listed.data?.agents ?? [];
  const names = agents.map((agent) => agent.name);
  const selected = chooseAgent(names, { picked: picked?.sessionId === sessionId ? picked.name : undefined, lastUsed, session });
  const select = (name: string) => setPicked({ sessionId, name });
  const cycle = (step: 1 | -1) => {
    const next = cycleAgent(names, selected, step);
    if (next === undefined || next === selected) return;
    select(next);
    announce(`Agent: ${next}`);
  };
  return { agents, selected, select, cycle, error: listed.error?.message };
}

/** A select of the agents, beside the model picker. */
export function AgentPicker({ choice }: { choice: AgentChoice }) {
  if (choice.error) return <ErrorLine inline error={choice.error} what="Agents unavailable" className="text-xs text-red-600" />;
  if (choice.selected === undefined) return <span className="text-xs text-zinc-400">Loading agents…</span>;
  const current = choice.agents.find((agent) => agent.name === choice.selected);
  return (
    <>
      <label className="sr-only" htmlFor="composer-agent">
        Agent
      </label>
      <select
        id="composer-agent"
        data-testid="agent-picker"
        value={choice.selected}
        title={current?.description ? `${current.description} (Tab in the empty message box switches the agent)` : "Tab in the empty message box switches the agent"}
        onChange={(event) => choice.select(event.target.value)}
        className="max-w-40 min-w-0 truncate rounded-md border-0 bg-transparent py-1 pr-7 pl-2 font-mono text-xs font-medium text-zinc-700 ring-1 ring-zinc-200 ring-inset hover:bg-zinc-50 focus:ring-2 focus:ring-indigo-500"
      >
        {choice.agents.map((agent) => (
          <option key={agent.name} value={agent.name}>
            @{agent.name}
          </option>
        ))}
      </select>
    </>
  );
}
