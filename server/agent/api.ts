import { z } from "zod";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context } from "../services";
import { sessionRow } from "../session/access";
import type { Agent } from "./agent";
import { sessionAgents } from "./project";

export const ListInput = z.object({ sessionId: Id.schema("session") });

export interface Listed {
  /** The agents a member may pick for the session (built-in build and plan, the configuration's and the repository's primary agents), in that order. */
  agents: Array<Pick<Agent, "name" | "description" | "mode" | "source"> & { model?: string }>;
  /** Agent files of the repository that were left out, and why. */
  problems: string[];
}

const ORDER: Record<Agent["source"], number> = { "built-in": 0, config: 1, project: 2 };

/** The primary agents of a session (its repository's agent files included), for the agent picker. */
export const list = fn(ListInput, async (ctx: Context, { sessionId }): Promise<Listed> => {
  const row = await sessionRow(ctx, sessionId);
  const { agents, problems } = await sessionAgents(ctx, row);
  return {
    agents: agents
      .primaries()
      .map((agent, index) => ({ agent, index }))
      .sort((a, b) => ORDER[a.agent.source] - ORDER[b.agent.source] || a.index - b.index)
      .map(({ agent }) => ({
        name: agent.name,
        description: agent.description,
        mode: agent.mode,
        source: agent.source,
        ...(agent.model ? { model: `${agent.model.providerId}/${agent.model.modelId}` } : {}),
      })),
    problems,
  };
});
