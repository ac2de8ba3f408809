export * as Project from "./project";
