import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import type { SharedV4ProviderOptions } from "@ai-sdk/provider";
import { guardedFetch } from "./guarded-fetch";
import { compatibleChatModel } from "./compatible/chat-stream";
import { mergingFetch } from "./compatible/merge-deltas";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Config } from "../config";
import { ParleyError } from "../errors";
import { type ModelOverrides, catalogModels, formatModelRef, parseModelRef, resolveModel } from "./models";
import { type ModelInfo, type ModelRef } from "./model-info";
import { DEFAULT_PROVIDER_LIMITS, type ProviderLimits } from "./limits";
import { OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID, type OfflineLanguageModel, createOfflineModel } from "./offline";

/**
 * Providers:
 * - `openai/<model>`: the Responses API (`POST /responses`) of `@ai-sdk/openai`, needs
 *   OPENAI_API_KEY; it goes to OPENAI_BASE_URL when that is set (a proxy that speaks the
 *   Responses API), else to api.openai.com.
 * - `compatible/<model>`: any OpenAI-compatible server (Ollama, vLLM, LM Studio, …) at
 *   OPENAI_BASE_URL through Chat Completions (`POST /chat/completions`), the one API they
 *   all implement. The key is optional (sent as "none" when unset). The base URL includes
 *   the version path, e.g. `http://localhost:11434/v1`.
 * - `anthropic/<model>`: the Messages API through `@ai-sdk/anthropic` (prompt caching on,
 *   extended thinking as reasoning parts for the models that think); its key is
 *   ANTHROPIC_API_KEY or a team's, at ANTHROPIC_BASE_URL or a team's base URL.
 * - `google/<model>`: Gemini's `streamGenerateContent` through `@ai-sdk/google` (thoughts
 *   as reasoning parts for the models that think); GOOGLE_GENERATIVE_AI_API_KEY or a team's.
 * - `offline/parley-offline`: the built-in offline model, always available.
 *
 * The SDKs fall back to environment variables for a key or base URL they are not given:
 * this module always gives both, so a team never reaches the operator's keys unless the
 * operator offers them (server/provider/team.ts).
 */

export const PROVIDERS = ["openai", "anthropic", "google", "compatible", OFFLINE_PROVIDER_ID] as const;
export type ProviderId = (typeof PROVIDERS)[number];
/** The providers that take a key (and a base URL): all but the offline model. */
export const KEYED_PROVIDERS = ["openai", "anthropic", "google", "compatible"] as const;
export type KeyedProvider = (typeof KEYED_PROVIDERS)[number];

/** A provider's key and base URL (undefined: none / the provider's own API). */
export interface ProviderCredential {
  apiKey: string | undefined;
  baseUrl: string | undefined;
}

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";
export const GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";
/** Thinking budget of the Anthropic models that think (tokens; counted in their output). */
export const ANTHROPIC_THINKING_BUDGET = 4096;

/** What this module reads from the configuration (a `Config` fits). */
export interface ProviderConfig {
  /** OpenAI's Responses API, and (when `compatible` is unset) the OpenAI-compatible server. */
  openai: Config["openai"];
  anthropic?: ProviderCredential | undefined;
  google?: ProviderCredential | undefined;
  /** The OpenAI-compatible server, when it is not `openai`'s base URL (a team's own). */
  compatible?: ProviderCredential | undefined;
  model?: string | undefined;
  smallModel?: string | undefined;
  /** Catalog overrides (a future `models` config entry). */
  models?: ModelOverrides | undefined;
  /** Pace of the offline model (tokens per second; 0 = no delays, e.g. for end-to-end tests). */
  offline?: { tokensPerSecond?: number | undefined } | undefined;
  /** What a provider may send (limits.ts); by default DEFAULT_PROVIDER_LIMITS. */
  provider?: ProviderLimits | undefined;
}

export type ProviderErrorReason =
  | "unknown-provider"
  | "unknown-model"
  | "missing-api-key"
  | "missing-base-url"
  | "no-default-model"
  | "not-enabled";

export class ProviderError extends ParleyError {
  override name = "ProviderError";
  constructor(
    readonly reason: ProviderErrorReason,
    message: string,
    readonly providerId?: string,
  ) {
    super("INVALID", message, { details: { reason, ...(providerId ? { providerId } : {}) } });
  }
}

export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
export const DEFAULT_OPENAI_SMALL_MODEL = "gpt-4.1-nano";

const offlineModels = new Map<number | undefined, OfflineLanguageModel>();

/**
 * The offline model of the process (one per pace): its "fail once" counters must survive
 * a retry, which may resolve the model again.
 */
export function offlineModel(tokensPerSecond?: number): OfflineLanguageModel {
  let model = offlineModels.get(tokensPerSecond);
  if (!model) {
    model = createOfflineModel(tokensPerSecond === undefined ? {} : { tokensPerSecond });
    offlineModels.set(tokensPerSecond, model);
  }
  return model;
}

function isProvider(id: string): id is ProviderId {
  return (PROVIDERS as readonly string[]).includes(id);
}

/** An AI SDK model for `ref`. No network call happens here. */
export function languageModel(ref: ModelRef, cfg: ProviderConfig): LanguageModelV4 {
  if (!isProvider(ref.providerId)) {
    throw new ProviderError(
      "unknown-provider",
      `unknown provider "${ref.providerId}" in model "${formatModelRef(ref)}" (known: ${PROVIDERS.join(", ")})`,
      ref.providerId,
    );
  }
  switch (ref.providerId) {
    case "openai": {
      const { apiKey, baseUrl } = cfg.openai;
      if (!apiKey) {
        throw new ProviderError(
          "missing-api-key",
          `model "${formatModelRef(ref)}" needs OPENAI_API_KEY${baseUrl ? '; for a keyless OpenAI-compatible server use "compatible/<model>"' : ""}`,
          ref.providerId,
        );
      }
      return createOpenAI({ apiKey, ...(baseUrl ? { baseURL: baseUrl } : {}), fetch: mergingFetch(undefined, cfg.provider) })(ref.modelId);
    }
    case "anthropic": {
      const apiKey = keyOf(ref, cfg.anthropic, "ANTHROPIC_API_KEY");
      return createAnthropic({ apiKey, baseURL: cfg.anthropic?.baseUrl ?? ANTHROPIC_BASE_URL, fetch: guardedFetch(cfg.provider) })(ref.modelId);
    }
    case "google": {
      const apiKey = keyOf(ref, cfg.google, "GOOGLE_GENERATIVE_AI_API_KEY");
      return createGoogleGenerativeAI({ apiKey, baseURL: cfg.google?.baseUrl ?? GOOGLE_BASE_URL, fetch: guardedFetch(cfg.provider) })(ref.modelId);
    }
    case "compatible": {
      const { apiKey, baseUrl } = cfg.compatible ?? cfg.openai;
      if (!baseUrl) {
        throw new ProviderError(
          "missing-base-url",
          `model "${formatModelRef(ref)}" needs OPENAI_BASE_URL (the OpenAI-compatible server, e.g. http://localhost:11434/v1)`,
          ref.providerId,
        );
      }
      return compatibleChatModel(ref.modelId, { apiKey: apiKey ?? "none", baseURL: baseUrl, ...(cfg.provider ? { limits: cfg.provider } : {}) });
    }
    case "offline":
      if (ref.modelId !== OFFLINE_MODEL_ID) {
        throw new ProviderError("unknown-model", `the offline provider has one model, "${OFFLINE_MODEL_ID}", not "${ref.modelId}"`, ref.providerId);
      }
      return offlineModel(cfg.offline?.tokensPerSecond);
  }
}

/** The key a provider's model needs; its absence is a typed error naming where one comes from. */
function keyOf(ref: ModelRef, credential: ProviderCredential | undefined, variable: string): string {
  if (credential?.apiKey) return credential.apiKey;
  throw new ProviderError(
    "missing-api-key",
    `model "${formatModelRef(ref)}" needs a ${ref.providerId} key: a team admin adds one on the Team page (Providers), or the operator sets ${variable}`,
    ref.providerId,
  );
}

/**
 * What a call to `info`'s model asks of its provider besides the prompt: Anthropic's
 * automatic prompt caching (the prompt so far is cached and read again by the next step)
 * and extended thinking for the models that think; Gemini's thoughts for those that think.
 */
export function providerOptions(info: ModelInfo): SharedV4ProviderOptions | undefined {
  if (info.providerId === "anthropic") {
    return {
      anthropic: {
        cacheControl: { type: "ephemeral" },
        ...(info.reasoning ? { thinking: { type: "enabled", budgetTokens: ANTHROPIC_THINKING_BUDGET } } : {}),
      },
    };
  }
  if (info.providerId === "google" && info.reasoning) return { google: { thinkingConfig: { includeThoughts: true } } };
  return undefined;
}

const OFFLINE_REF: ModelRef = { providerId: OFFLINE_PROVIDER_ID, modelId: OFFLINE_MODEL_ID };

/**
 * The model a new session uses: the configured one; else OpenAI's gpt-4.1-mini when a key
 * is set; else the offline model. With only OPENAI_BASE_URL set there is no way to guess
 * the server's model name, so the configuration must name it.
 */
export function defaultModel(cfg: ProviderConfig): ModelRef {
  if (cfg.model) return parseModelRef(cfg.model);
  if (cfg.openai.apiKey) return { providerId: "openai", modelId: DEFAULT_OPENAI_MODEL };
  if (cfg.openai.baseUrl) {
    throw new ProviderError(
      "no-default-model",
      'OPENAI_BASE_URL is set but no model is configured: set PARLEY_MODEL (or "model" in parley.config.json) to "compatible/<model name on that server>"',
    );
  }
  return { ...OFFLINE_REF };
}

/**
 * The model for titles and summaries: the configured small model; else gpt-4.1-nano when
 * the default model is OpenAI's own API; else the default model itself (a compatible
 * server's model, or the offline model).
 */
export function smallModel(cfg: ProviderConfig): ModelRef {
  if (cfg.smallModel) return parseModelRef(cfg.smallModel);
  const main = defaultModel(cfg);
  if (main.providerId === "openai" && !cfg.openai.baseUrl) return { providerId: "openai", modelId: DEFAULT_OPENAI_SMALL_MODEL };
  return main;
}

/**
 * Models to offer in a picker: the offline model always; the OpenAI catalog when a key is
 * set; on a compatible server, the configured models and those described in overrides.
 */
export function availableModels(cfg: ProviderConfig): ModelInfo[] {
  const out: ModelInfo[] = [resolveModel(OFFLINE_REF, cfg.models)];
  if (cfg.openai.apiKey) out.push(...catalogModels("openai", cfg.models));
  if (cfg.openai.baseUrl) {
    const configured = [cfg.model, cfg.smallModel, ...Object.keys(cfg.models ?? {})]
      .filter((m): m is string => m !== undefined)
      .map(parseModelRef)
      .filter((ref) => ref.providerId === "compatible");
    for (const ref of configured) {
      if (!out.some((m) => m.providerId === ref.providerId && m.modelId === ref.modelId)) out.push(resolveModel(ref, cfg.models));
    }
  }
  if (cfg.openai.apiKey && cfg.model) {
    const ref = parseModelRef(cfg.model);
    if (ref.providerId === "openai" && !out.some((m) => m.providerId === "openai" && m.modelId === ref.modelId)) {
      out.push(resolveModel(ref, cfg.models));
    }
  }
  return out;
}

/** A model ready for the prompt loop: the AI SDK model plus its limits and prices. */
export interface LoadedModel {
  ref: ModelRef;
  info: ModelInfo;
  language: LanguageModelV4;
  limit: ModelInfo["limit"];
  cost: ModelInfo["cost"];
  images: boolean;
  /** What its provider may send; the step's part size and clocks are checked by server/session/llm.ts. */
  providerLimits: ProviderLimits;
  /** What each call asks of the provider (prompt caching, thinking): `providerOptions` above. */
  providerOptions?: SharedV4ProviderOptions;
}

export function loadModel(ref: ModelRef, cfg: ProviderConfig): LoadedModel {
  const info = resolveModel(ref, cfg.models);
  return {
    ref: { providerId: ref.providerId, modelId: ref.modelId },
    info,
    language: languageModel(ref, cfg),
    limit: info.limit,
    cost: info.cost,
    images: info.images,
    providerLimits: cfg.provider ?? DEFAULT_PROVIDER_LIMITS,
    ...optionsOf(info),
  };
}

function optionsOf(info: ModelInfo): { providerOptions?: SharedV4ProviderOptions } {
  const options = providerOptions(info);
  return options ? { providerOptions: options } : {};
}
