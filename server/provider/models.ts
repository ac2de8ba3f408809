import { z } from "zod";
import { VENDOR_CATALOG } from "./catalog";
import type { ModelCost, ModelInfo, ModelLimit, ModelRef } from "./model-info";
import { OFFLINE_LABEL, OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID } from "./offline/constants";

/**
 * The model catalog: context/output limits and USD prices per million tokens
 * (input, output, cache read, cache write), and whether it takes images. Entries can be
 * overridden — or unknown models described — in config (`ModelOverrides`). A model the
 * catalog does not know still works: limits 0 (which turns overflow detection off), cost 0,
 * and no images until the config says it takes them.
 */

const REF = /^[^/\s]+\/\S+$/;

/** "provider/model" → ref. The model id may itself contain slashes ("compatible/meta/llama-3"). */
export function parseModelRef(value: string): ModelRef {
  if (!REF.test(value)) throw new Error(`invalid model "${value}": expected "provider/model"`);
  const slash = value.indexOf("/");
  return { providerId: value.slice(0, slash), modelId: value.slice(slash + 1) };
}

export function formatModelRef(ref: ModelRef): string {
  return `${ref.providerId}/${ref.modelId}`;
}

const free: ModelCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

function openai(
  modelId: string,
  name: string,
  limit: ModelLimit,
  price: [input: number, output: number, cacheRead: number],
  reasoning: boolean,
): ModelInfo {
  return {
    providerId: "openai",
    modelId,
    name,
    limit,
    // OpenAI bills no separate cache-write price: writes are ordinary input tokens.
    cost: { input: price[0], output: price[1], cacheRead: price[2], cacheWrite: 0 },
    tools: true,
    reasoning,
    // Every OpenAI model of the catalog takes images as input.
    images: true,
  };
}

const GPT41 = { context: 1_047_576, output: 32_768 };
const GPT4O = { context: 128_000, output: 16_384 };
const O_SERIES = { context: 200_000, output: 100_000 };
const GPT5 = { context: 400_000, input: 272_000, output: 128_000 };

/** Public list prices and limits as published by OpenAI (standard tier). */
export const CATALOG: readonly ModelInfo[] = [
  {
    providerId: OFFLINE_PROVIDER_ID,
    modelId: OFFLINE_MODEL_ID,
    name: OFFLINE_LABEL,
    limit: { context: 32_000, output: 4_096 },
    cost: free,
    tools: true,
    reasoning: true,
    images: false,
  },
  openai("gpt-4.1", "GPT-4.1", GPT41, [2, 8, 0.5], false),
  openai("gpt-4.1-mini", "GPT-4.1 mini", GPT41, [0.4, 1.6, 0.1], false),
  openai("gpt-4.1-nano", "GPT-4.1 nano", GPT41, [0.1, 0.4, 0.025], false),
  openai("gpt-4o", "GPT-4o", GPT4O, [2.5, 10, 1.25], false),
  openai("gpt-4o-mini", "GPT-4o mini", GPT4O, [0.15, 0.6, 0.075], false),
  openai("o3", "o3", O_SERIES, [2, 8, 0.5], true),
  openai("o4-mini", "o4-mini", O_SERIES, [1.1, 4.4, 0.275], true),
  openai("gpt-5", "GPT-5", GPT5, [1.25, 10, 0.125], true),
  openai("gpt-5-mini", "GPT-5 mini", GPT5, [0.25, 2, 0.025], true),
  openai("gpt-5-nano", "GPT-5 nano", GPT5, [0.05, 0.4, 0.005], true),
  ...VENDOR_CATALOG,
];

const NonNegative = z.number().nonnegative();
const Tokens = z.number().int().nonnegative();

export const ModelOverride = z
  .object({
    name: z.string().min(1).optional(),
    /** The model accepts images (a vision model); unknown models are taken not to until told. */
    images: z.boolean().optional(),
    limit: z.object({ context: Tokens, input: Tokens, output: Tokens }).partial().strict().optional(),
    /** Whether it thinks (Anthropic's extended thinking and Gemini's thoughts are asked for). */
    reasoning: z.boolean().optional(),
    cost: z
      .object({ input: NonNegative, output: NonNegative, cacheRead: NonNegative, cacheWrite: NonNegative, reasoning: NonNegative })
      .partial()
      .strict()
      .optional(),
  })
  .strict();
export type ModelOverride = z.infer<typeof ModelOverride>;

/**
 * Config entry `models`: "provider/model" → partial {name, images, limit, cost}. Overrides a
 * catalog entry field by field, or describes a model the catalog does not know
 * (e.g. `"compatible/llama3.1": {"limit": {"context": 131072, "output": 8192}}`).
 */
export const ModelOverrides = z.record(z.string().regex(REF, 'expected "provider/model"'), ModelOverride);
export type ModelOverrides = z.infer<typeof ModelOverrides>;

/** Dated snapshots ("gpt-4o-2024-08-06") share the prices of their family. */
const SNAPSHOT = /-\d{4}-\d{2}-\d{2}$/;

function catalogEntry(ref: ModelRef): ModelInfo | undefined {
  const exact = CATALOG.find((m) => m.providerId === ref.providerId && m.modelId === ref.modelId);
  if (exact || ref.providerId !== "openai" || !SNAPSHOT.test(ref.modelId)) return exact;
  const family = ref.modelId.replace(SNAPSHOT, "");
  const entry = CATALOG.find((m) => m.providerId === "openai" && m.modelId === family);
  return entry && { ...entry, modelId: ref.modelId, name: `${entry.name} (${ref.modelId.slice(family.length + 1)})` };
}

/** Whether the catalog (not an override) knows this model. */
export function isKnownModel(ref: ModelRef | string): boolean {
  return catalogEntry(typeof ref === "string" ? parseModelRef(ref) : ref) !== undefined;
}

/**
 * The catalog entry for `ref` with config overrides applied; a model nobody describes
 * gets limits 0 and cost 0, tools on, reasoning and images off.
 */
export function resolveModel(ref: ModelRef | string, overrides?: ModelOverrides): ModelInfo {
  const r = typeof ref === "string" ? parseModelRef(ref) : ref;
  const known = catalogEntry(r);
  const base: ModelInfo = known ?? {
    providerId: r.providerId,
    modelId: r.modelId,
    name: r.modelId,
    limit: { context: 0, output: 0 },
    cost: free,
    tools: true,
    reasoning: false,
    images: false,
  };
  const override = overrides?.[formatModelRef(r)];
  const priceUnknown = !known && override?.cost === undefined ? { priceUnknown: true } : {};
  if (!override) return { ...base, limit: { ...base.limit }, cost: { ...base.cost }, ...priceUnknown };
  const limit: ModelLimit = { ...base.limit, ...definedOnly(override.limit) };
  return {
    ...base,
    name: override.name ?? base.name,
    images: override.images ?? base.images,
    reasoning: override.reasoning ?? base.reasoning,
    limit,
    cost: { ...base.cost, ...definedOnly(override.cost) },
    ...priceUnknown,
  };
}

/** Catalog models of one provider, overrides applied. */
export function catalogModels(providerId: string, overrides?: ModelOverrides): ModelInfo[] {
  return CATALOG.filter((m) => m.providerId === providerId).map((m) => resolveModel(m, overrides));
}

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
