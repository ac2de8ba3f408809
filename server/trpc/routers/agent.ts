import * as AgentApi from "../../agent/api";
import { procedure, router } from "../init";

/** Agents: those a member may pick for a session (the agent picker). */
export const agentRouter = router({
  list: procedure.input(AgentApi.ListInput).query(({ ctx, input }) => AgentApi.list(ctx, input)),
});
