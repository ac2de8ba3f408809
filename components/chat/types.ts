import type { inferRouterOutputs } from "@trpc/server";
import type { AssistantMessage, Message, MessageError, Part, PartOf, PartType, ToolPart, ToolState, UserMessage, WithParts } from "@/server/session/message";
import type { Status } from "@/server/session/events";
import type { AppRouter } from "@/server/trpc/router";

/** Client-side names for the server's types (the zod schemas in server/session are the source of truth). */
export type { AssistantMessage, Message, MessageError, Part, PartOf, PartType, Status, ToolPart, ToolState, UserMessage, WithParts };

/** One page of `message.page` as it arrives over the wire. */
export type MessagePage = inferRouterOutputs<AppRouter>["message"]["page"];
