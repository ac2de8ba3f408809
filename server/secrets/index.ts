export * as Secrets from "./secrets";
export { Keyring, parseServerKey } from "./seal";
export { redactor } from "./redact";
