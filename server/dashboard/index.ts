/** The team dashboard (SPEC §13): `import { Dashboard } from "@/server/dashboard"`. */
export * as Dashboard from "./dashboard";
