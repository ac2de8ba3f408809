import type { LanguageModel } from "ai";
import type { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import type { RunLock } from "./lock";
import type { ModelRef } from "./message";
import type { Prices } from "./usage";

/** A model ready to call, with what the loop needs to know about it. */
export interface ResolvedModel {
  ref: ModelRef;
  language: LanguageModel;
  limit: { context: number; input?: number; output: number };
  cost: Prices;
}

/**
 * Everything the prompt loop depends on, passed explicitly: the server wires the real
 * ones (server/engine.ts), tests their own (a scripted model, a short flush interval).
 */
export interface Engine {
  db: Db;
  bus: Bus;
  lock: RunLock;
  dataDir: string;
  resolveModel(ref: ModelRef): ResolvedModel;
  defaultModel(): ModelRef;
  /** The small/fast model for titles (SPEC §12); without one, the session's model is used. */
  smallModel?(): ResolvedModel;
  /** Provider attempts per step (SPEC §6, default 8). */
  maxAttempts: number;
  compaction: { auto: boolean; prune: boolean };
  flushMs?: number;
  now?: () => number;
}
