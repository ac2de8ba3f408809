/** The session sidebar's read: `import { Sidebar } from "@/server/sidebar"`. */
export * as Sidebar from "./sidebar";
