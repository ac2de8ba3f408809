import { z } from "zod";
import { refuseNul } from "../nul";

/** Commands as the server configuration and teams define them (command.ts reads them). */

export const MAX_TEMPLATE_CHARS = 20_000;

export const CommandName = z
  .string()
  .max(100)
  .regex(/^[A-Za-z0-9][\w.-]*(?:\/[A-Za-z0-9][\w.-]*)*$/, "a command's name is letters, digits, '.', '-' or '_', folders separated by '/'");
export const ModelString = z.string().max(200).regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"');

/** A command of the server configuration or of a team: `{template, description?, agent?, model?, subtask?}`. */
export const CommandDefinition = z
  .object({
    template: refuseNul(z.string().min(1, "a command needs a template").max(MAX_TEMPLATE_CHARS), "a template"),
    description: refuseNul(z.string().max(500), "a description").optional(),
    agent: z.string().min(1).max(100).optional(),
    model: ModelString.optional(),
    subtask: z.boolean().optional(),
  })
  .strict();
export type CommandDefinition = z.infer<typeof CommandDefinition>;
export const CommandsConfig = z.record(CommandName, CommandDefinition);
export type CommandsConfig = z.infer<typeof CommandsConfig>;

