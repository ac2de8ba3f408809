/** Full-text search of sessions: `import { Search } from "@/server/search"`. */
export * as Search from "./search";
