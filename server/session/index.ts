/** The session module: `import { Session } from "@/server/session"`. */
export * as Session from "./api";
export type { Actor } from "../actor";
export type { Context } from "../services";
export * as SessionEvent from "./events";
export * as MessageV2 from "./message";
