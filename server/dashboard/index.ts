/** The team dashboard: `import { Dashboard } from "@/server/dashboard"`. */
export * as Dashboard from "./dashboard";
