/** The session module (SPEC §2–§4): `import { Session } from "@/server/session"`. */
export * as Session from "./api";
export type { Actor, Context } from "./context";
export * as SessionEvent from "./events";
export * as MessageV2 from "./message";
