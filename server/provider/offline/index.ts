/** The built-in offline model: a deterministic language model that streams reasoning and text and really calls the tools. */
export * from "./model";
