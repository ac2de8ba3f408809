import { z } from "zod";
import { type Bus, define } from "../bus/bus";
import { isParleyError } from "../errors";
import { Secrets } from "../secrets";
import type { Models, Services, TeamModelDetails } from "../services";
import { CatalogFile, mergedOverrides } from "./catalog-file";
import { type ModelOverrides, catalogModels, formatModelRef, parseModelRef, resolveModel } from "./models";
import { type ModelInfo, type ModelRef } from "./model-info";
import { OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID } from "./offline/constants";
import {
  KEYED_PROVIDERS,
  type KeyedProvider,
  type ProviderConfig,
  type ProviderCredential,
  ProviderError,
  defaultModel,
  loadModel,
  smallModel,
} from "./provider";

/**
 * Each team's models (SPEC §12, §16): a provider's key is the team's own (a team secret of
 * kind "provider-key", read here by the server alone) or, when the operator offers them
 * (`providers.serverKeys` "all"), the server's environment key; a team that set neither
 * for a provider cannot use it. The team's settings (TeamModelSettings) choose the models
 * its members may use, the default, the small model (titles and compaction) and a model per
 * agent. Everything is read from the database for each use, so every instance sees a change
 * at once.
 */

/** Where a team's provider key comes from. */
export type KeySource = "team" | "server" | "none";

export interface ServerProviders {
  /** The server's configuration of providers (its environment keys included). */
  cfg: ProviderConfig & { anthropic?: ProviderCredential | undefined; google?: ProviderCredential | undefined };
  serverKeys: "all" | "none";
  allowHttp: boolean;
  /** The catalog's entries beyond the bundled ones (catalog file, then the configuration's `models`). */
  overrides(): ModelOverrides;
}

export const AgentModels = z.record(z.string(), z.string());
const Enabled = z.array(z.string());

/** A team's model settings as the domain reads them. */
export interface TeamModelChoice {
  enabled: string[];
  defaultModel: string | undefined;
  smallModel: string | undefined;
  agentModels: Record<string, string>;
}

export async function readChoice(s: Pick<Services, "db">, teamId: string): Promise<TeamModelChoice> {
  return (await readSettings(s, teamId)).choice;
}

/** A team's model settings row: its model choice, and its spending limits (the same row). */
async function readSettings(s: Pick<Services, "db">, teamId: string): Promise<{ choice: TeamModelChoice; limits: TeamModelDetails["limits"] }> {
  const row = await s.db.teamModelSettings.findUnique({ where: { teamId } });
  return {
    choice: {
      enabled: row ? Enabled.catch([]).parse(row.enabled) : [],
      defaultModel: row?.defaultModel ?? undefined,
      smallModel: row?.smallModel ?? undefined,
      agentModels: row ? AgentModels.catch({}).parse(row.agentModels) : {},
    },
    limits: { team: row?.monthlyLimit ? row.monthlyLimit.toNumber() : null, member: row?.memberLimit ? row.memberLimit.toNumber() : null },
  };
}

const NONE: ProviderCredential = { apiKey: undefined, baseUrl: undefined };

function serverCredential(server: ServerProviders, provider: KeyedProvider): ProviderCredential {
  if (server.serverKeys === "none") return NONE;
  if (provider === "compatible") return server.cfg.compatible ?? server.cfg.openai;
  return server.cfg[provider] ?? NONE;
}

/** The team's credentials for each provider, and where each comes from. */
export async function teamCredentials(
  s: Pick<Services, "db" | "keyring">,
  server: ServerProviders,
  teamId: string,
): Promise<{ credentials: Record<KeyedProvider, ProviderCredential>; sources: Record<KeyedProvider, KeySource> }> {
  const rows = await s.db.teamProvider.findMany({ where: { teamId } });
  const one = async (provider: KeyedProvider): Promise<{ credential: ProviderCredential; source: KeySource }> => {
    const row = rows.find((r) => r.provider === provider);
    if (row) return { credential: { apiKey: row.secretName ? await revealed(s, teamId, row.secretName) : undefined, baseUrl: row.baseUrl ?? undefined }, source: "team" };
    const fallback = serverCredential(server, provider);
    return { credential: fallback, source: fallback.apiKey || (provider === "compatible" && fallback.baseUrl) ? "server" : "none" };
  };
  const [openai, anthropic, google, compatible] = await Promise.all([one("openai"), one("anthropic"), one("google"), one("compatible")]);
  return {
    credentials: { openai: openai.credential, anthropic: anthropic.credential, google: google.credential, compatible: compatible.credential },
    sources: { openai: openai.source, anthropic: anthropic.source, google: google.source, compatible: compatible.source },
  };
}

/** A provider key's value; none when its secret was removed on the Secrets section meanwhile (the provider then has no key). */
async function revealed(s: Pick<Services, "db" | "keyring">, teamId: string, name: string): Promise<string | undefined> {
  try {
    return await Secrets.reveal(s, teamId, name);
  } catch (error) {
    if (isParleyError(error) && error.code === "NOT_FOUND") return undefined;
    throw error;
  }
}

/** A provider configuration whose keys are the team's. */
export function teamConfig(server: ServerProviders, credentials: Record<KeyedProvider, ProviderCredential>): ProviderConfig {
  const { openai, anthropic, google, compatible } = credentials;
  return { ...server.cfg, models: server.overrides(), openai, anthropic, google, compatible };
}

/**
 * Every model a team could enable: the offline model; the catalog's for each provider it
 * has a key for; the models configured for its providers (catalog file, `models`, the
 * server's `model` and `smallModel` on a compatible server).
 */
export function teamCatalog(cfg: ProviderConfig, sources: Record<KeyedProvider, KeySource>): ModelInfo[] {
  const out: ModelInfo[] = [resolveModel(OFFLINE, cfg.models)];
  const has = (provider: string) => KEYED_PROVIDERS.some((p) => p === provider && sources[p] !== "none");
  for (const provider of ["openai", "anthropic", "google"] as const) if (has(provider)) out.push(...catalogModels(provider, cfg.models));
  const configured = [...Object.keys(cfg.models ?? {}), cfg.model, cfg.smallModel].filter((ref): ref is string => ref !== undefined);
  for (const ref of configured) {
    const parsed = parseModelRef(ref);
    if (has(parsed.providerId) && !out.some((m) => formatModelRef(m) === ref)) out.push(resolveModel(parsed, cfg.models));
  }
  return out;
}

const OFFLINE: ModelRef = { providerId: OFFLINE_PROVIDER_ID, modelId: OFFLINE_MODEL_ID };
const FIRST_CHOICE: Partial<Record<KeyedProvider, string>> = { anthropic: "anthropic/claude-sonnet-4-5", google: "google/gemini-2.5-flash" };

/**
 * The model of a team's new sessions: its own default; else the server's configured one
 * (or OpenAI's default when the team has an OpenAI key) when the team may use it; else its
 * first enabled model; else a model of a provider it has a key for; else the offline model.
 */
function teamDefault(cfg: ProviderConfig, choice: TeamModelChoice, sources: Record<KeyedProvider, KeySource>): ModelRef {
  if (choice.defaultModel) return parseModelRef(choice.defaultModel);
  const first = choice.enabled[0];
  let server: ModelRef | undefined;
  try {
    server = defaultModel(cfg);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    // No default the server can name (a compatible server without a model): the team's choices decide.
    server = undefined;
  }
  const reachable = (ref: ModelRef) => ref.providerId === OFFLINE_PROVIDER_ID || KEYED_PROVIDERS.some((p) => p === ref.providerId && sources[p] !== "none");
  const allowed = (ref: ModelRef) => reachable(ref) && (!first || choice.enabled.includes(formatModelRef(ref)));
  // The offline model is the server's choice only when configured; otherwise it is the last resort.
  if (server && allowed(server) && (cfg.model !== undefined || server.providerId !== OFFLINE_PROVIDER_ID)) return server;
  if (first) return parseModelRef(first);
  for (const provider of ["anthropic", "google"] as const) {
    const ref = FIRST_CHOICE[provider];
    if (ref && sources[provider] !== "none") return parseModelRef(ref);
  }
  return server ?? OFFLINE;
}

/** The models of one team (see above). */
export function teamModels(cfg: ProviderConfig, choice: TeamModelChoice, sources: Record<KeyedProvider, KeySource>): Models {
  const enabled = new Set(choice.enabled);
  const check = (ref: ModelRef) => {
    if (enabled.size === 0 || ref.providerId === OFFLINE_PROVIDER_ID || enabled.has(formatModelRef(ref))) return;
    throw new ProviderError("not-enabled", `model "${formatModelRef(ref)}" is not enabled for this team: an owner or admin enables models on the Team page (Providers)`, ref.providerId);
  };
  const resolve = (ref: ModelRef) => {
    check(ref);
    return loadModel(ref, cfg);
  };
  const small = choice.smallModel ? parseModelRef(choice.smallModel) : undefined;
  const models: Models = {
    resolve,
    default: () => teamDefault(cfg, choice, sources),
    small: () => {
      if (small) return resolve(small);
      // Else the server's rule for the team's default model (gpt-4.1-nano beside OpenAI's own API, else that model).
      const main = models.default();
      const guess = smallModel({ ...cfg, model: formatModelRef(main), ...(choice.defaultModel ? { smallModel: undefined } : {}) });
      return resolve(enabled.size > 0 && guess.providerId !== OFFLINE_PROVIDER_ID && !enabled.has(formatModelRef(guess)) ? main : guess);
    },
    available: () => {
      const all = teamCatalog(cfg, sources);
      if (enabled.size === 0) return all;
      return choice.enabled.map((ref) => all.find((m) => formatModelRef(m) === ref) ?? resolveModel(ref, cfg.models));
    },
    agentModel: (agent) => {
      const ref = choice.agentModels[agent];
      return ref ? parseModelRef(ref) : undefined;
    },
  };
  if (small) models.compaction = () => resolve(small);
  return models;
}

/**
 * How long a team's models, once read, are used without reading them again. A change (a
 * key, the models, a secret) forgets them at once on every instance (`acrossInstances`:
 * the bus carries the forgetting); this bound only limits what a forgetting lost on its
 * way (a bridge that was down longer than its queue) could keep.
 */
export const TEAM_MODELS_TTL_MS = 60_000;

/** Internal to the servers (no audience): a team's keys, models or secrets changed on some instance. */
export const TeamModelsChanged = define("team.models.changed", z.object({}));

/** Models whose forgetting already travels a bus. */
const shared = new WeakSet<Models>();

/**
 * `models` whose `forgetTeam` forgets on every instance of the bus: it publishes
 * TeamModelsChanged, and each instance (this one included) forgets the team's models when
 * the event reaches it.
 */
export function acrossInstances(models: Models, bus: Bus): Models {
  const forget = models.forgetTeam;
  if (!forget || shared.has(models)) return models;
  shared.add(models);
  bus.subscribeAll((event) => {
    if (event.name === TeamModelsChanged.name) forget(event.scope.teamId);
  });
  models.forgetTeam = (teamId) => {
    forget(teamId);
    bus.publish(TeamModelsChanged, {}, { teamId });
  };
  return models;
}
const MAX_CACHED_TEAMS = 1_000;

/** The `forTeam` and `forgetTeam` of a server's models. */
export function forTeams(server: ServerProviders, now: () => number = () => performance.now()): Required<Pick<Models, "forTeam" | "forgetTeam">> {
  const kept = new Map<string, { until: number; models: Promise<Models & { details: TeamModelDetails }> }>();
  const forTeam: NonNullable<Models["forTeam"]> = (s, teamId) => {
    const hit = kept.get(teamId);
    if (hit && hit.until > now()) return hit.models;
    const models = readTeamModels(server, s, teamId);
    if (kept.size >= MAX_CACHED_TEAMS) kept.clear();
    const entry = { until: now() + TEAM_MODELS_TTL_MS, models };
    kept.set(teamId, entry);
    // A failed read is not kept.
    models.catch(() => {
      if (kept.get(teamId) === entry) kept.delete(teamId);
    });
    return models;
  };
  return { forTeam, forgetTeam: (teamId) => void kept.delete(teamId) };
}

async function readTeamModels(server: ServerProviders, s: Pick<Services, "db" | "keyring">, teamId: string): Promise<Models & { details: TeamModelDetails }> {
  const [{ credentials, sources }, { choice, limits }] = await Promise.all([teamCredentials(s, server, teamId), readSettings(s, teamId)]);
  const cfg = teamConfig(server, credentials);
  const details: TeamModelDetails = {
    catalog: () => teamCatalog(cfg, sources),
    sources,
    load: (ref) => loadModel(ref, cfg),
    allowHttp: server.allowHttp,
    serverKeys: server.serverKeys,
    limits,
  };
  return { ...teamModels(cfg, choice, sources), details };
}

/** Forgets what was kept of a team's models (its keys, models or secrets changed). */
export function forgetTeamModels(s: { models?: Pick<Models, "forgetTeam"> }, teamId: string): void {
  s.models?.forgetTeam?.(teamId);
}

/** The models `teamId` uses: its own when the server has teams' models, else the server's. */
export async function modelsOf(s: Pick<Services, "db" | "keyring" | "models">, teamId: string): Promise<Models> {
  return s.models.forTeam ? s.models.forTeam(s, teamId) : s.models;
}

/** The server's providers of a configuration. */
export function serverProviders(cfg: ServerProviders["cfg"] & { providers: { serverKeys: "all" | "none"; allowHttp: boolean; catalog: string | undefined } }): ServerProviders {
  const file = new CatalogFile(cfg.providers.catalog);
  return { cfg, serverKeys: cfg.providers.serverKeys, allowHttp: cfg.providers.allowHttp, overrides: () => mergedOverrides(file, cfg.models) };
}
