export * as Instructions from "./stored";
export { type Gathered, type InstructionSettings, NO_INSTRUCTION_SETTINGS, RULE_FILES, type UrlCache, gather } from "./sources";
export { StepRules, loadedRules } from "./nested";
