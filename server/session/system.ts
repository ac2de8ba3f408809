import type { Agent } from "../agent/agent";
import type { ModelRef } from "./message";

/**
 * The system prompt of a turn: who the agent is (an agent file's body replaces the base
 * prompt, as in OpenCode), where it works, what the team, the project and the repository
 * tell it (`instructions`: "Instructions from: …" blocks in their order,
 * server/instructions), the agent's own prompt, and the rules.
 */
export function systemPrompt(input: { agent: Agent; directory: string; model: ModelRef; lastStep: boolean; now?: Date; instructions?: readonly string[] }): string {
  const base = input.agent.replacesPrompt && input.agent.prompt ? [input.agent.prompt] : [
    "You are Parley's coding agent. You help a team with the project in the working directory:",
    "read and edit its files and run commands with the tools you have, then answer concisely.",
    "Prefer small, verifiable steps. Never access files outside the project directory.",
  ];
  const lines = [
    ...base,
    "",
    `<env>`,
    `  Working directory: ${input.directory}`,
    `  Platform: ${process.platform}`,
    `  Date: ${(input.now ?? new Date()).toDateString()}`,
    `  Model: ${input.model.providerId}/${input.model.modelId}`,
    `</env>`,
  ];
  for (const text of input.instructions ?? []) lines.push("", text);
  if (input.agent.prompt && !input.agent.replacesPrompt) lines.push("", input.agent.prompt);
  if (input.lastStep) {
    lines.push(
      "",
      "MAXIMUM STEPS REACHED: tools are disabled. Answer in text only: summarise what was done, what remains, and what the user should do next.",
    );
  }
  return lines.join("\n");
}
