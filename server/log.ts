import { randomUUID } from "node:crypto";
import pino from "pino";

/**
 * The server's one logger (pino). Each module takes a logger of its scope —
 * `const log = logger("session")` — and writes `log.error("could not …", error)`.
 *
 * - Format: JSON lines on standard output in production (`NODE_ENV=production`, or
 *   `PARLEY_LOG_FORMAT=json`): `{"level":50,"time":…,"scope":"session","msg":…,"err":{…}}`;
 *   elsewhere one readable line, `[session] could not …` followed by the error's stack,
 *   written through the console (console.error, console.warn, console.log by level), as a developer and
 *   a test reading the output expect.
 * - Level: `PARLEY_LOG_LEVEL` (trace, debug, info, warn, error, fatal, silent; default info),
 *   or config `log.level` once the configuration is read (`setLogLevel`).
 * - Request ids: `requestLogger` gives a route handler's logger its request's id (taken from
 *   a trusted proxy's `x-request-id` when well formed, else new), on every line it writes.
 * - No secrets: messages are the server's own sentences; the values of fields named like a
 *   credential (password, token, authorization, cookie, secret, key) are replaced before a
 *   line is written, and text from outside (a git error, a provider's message) reaches a log
 *   only after the secrets redactor (server/secrets/redact.ts) has run over it.
 */

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return LOG_LEVELS.some((level) => level === value);
}

const CREDENTIAL_FIELDS = ["password", "token", "authorization", "cookie", "secret", "key"];
const REDACT_PATHS = [...CREDENTIAL_FIELDS, ...CREDENTIAL_FIELDS.map((field) => `*.${field}`), ...CREDENTIAL_FIELDS.map((field) => `*.headers.${field}`)];

function json(): boolean {
  return process.env.PARLEY_LOG_FORMAT === "json" || (process.env.PARLEY_LOG_FORMAT !== "text" && process.env.NODE_ENV === "production");
}

/** pino's numeric levels: 40 warn, 50 error and above. */
const WARN = 40;
const ERROR = 50;

interface Line {
  level: number;
  scope?: string;
  reqId?: string;
  msg?: string;
  err?: { stack?: string; message?: string; type?: string };
}

function isLine(value: unknown): value is Line {
  return typeof value === "object" && value !== null && "level" in value && typeof value.level === "number";
}

/** A JSON line as a developer reads it: `[scope] message (request id)`, then the error's stack. */
function readable(line: string): { text: string; level: number } {
  const parsed: unknown = JSON.parse(line);
  const entry: Line = isLine(parsed) ? parsed : { level: 30, msg: line };
  const head = `${entry.scope ? `[${entry.scope}] ` : ""}${entry.msg ?? ""}${entry.reqId ? ` (request ${entry.reqId})` : ""}`;
  const error = entry.err ? `\n${entry.err.stack ?? `${entry.err.type ?? "Error"}: ${entry.err.message ?? ""}`}` : "";
  return { text: `${head}${error}`, level: entry.level };
}

function initialLevel(): LogLevel {
  const fromEnv = process.env.PARLEY_LOG_LEVEL;
  return fromEnv && isLogLevel(fromEnv) ? fromEnv : "info";
}

/** A root logger writing JSON lines to `destination` (the server's: standard output in production, the console elsewhere). */
export function rootLogger(destination: pino.DestinationStream, level: LogLevel = initialLevel()): pino.Logger {
  return pino({ level, base: undefined, redact: { paths: REDACT_PATHS, censor: "[secret]" }, serializers: { err: pino.stdSerializers.err } }, destination);
}

/** The console as a destination: each JSON line as one readable line (see the header). */
export function consoleLines(write: (level: number, text: string) => void = toConsole): pino.DestinationStream {
  return {
    write(line: string) {
      const { text, level } = readable(line);
      write(level, text);
    },
  };
}

function toConsole(level: number, text: string): void {
  /* The console is this module's output in development and tests only (see the header). */
  if (level >= ERROR) console.error(text);
  else if (level >= WARN) console.warn(text);
  else console.log(text);
}

const root = rootLogger(json() ? pino.destination({ dest: 1, sync: true }) : consoleLines());

/** The level from the configuration (config `log.level`; `PARLEY_LOG_LEVEL` wins, as for every setting). */
export function setLogLevel(level: LogLevel): void {
  root.level = process.env.PARLEY_LOG_LEVEL && isLogLevel(process.env.PARLEY_LOG_LEVEL) ? process.env.PARLEY_LOG_LEVEL : level;
}

export interface Log {
  error(message: string, error?: unknown): void;
  warn(message: string, error?: unknown): void;
  info(message: string): void;
  debug(message: string): void;
}

export function wrap(instance: pino.Logger): Log {
  const withError = (level: "error" | "warn") => (message: string, error?: unknown) => {
    if (error === undefined) instance[level](message);
    else instance[level]({ err: error instanceof Error ? error : new Error(String(error)) }, message);
  };
  return {
    error: withError("error"),
    warn: withError("warn"),
    info: (message) => instance.info(message),
    debug: (message) => instance.debug(message),
  };
}

/** The logger of a module (`scope` names it on every line). */
export function logger(scope: string): Log {
  return wrap(root.child({ scope }));
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** A route handler's logger: its scope and the request's id (a well-formed `x-request-id` from the proxy, else a new one). */
export function requestLogger(scope: string, headers: Headers): { log: Log; requestId: string } {
  const given = headers.get("x-request-id");
  const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
  return { log: wrap(root.child({ scope, reqId: requestId })), requestId };
}
