/** Who views and who types in a team's sessions: `import { Presence } from "@/server/presence"`. */
export * as Presence from "./presence";
