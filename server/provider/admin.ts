import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError } from "../errors";
import * as Id from "../id";
import { Secrets, redactor } from "../secrets";
import type { Context, TeamModelDetails } from "../services";
import { classify } from "../session/classify";
import * as LLM from "../session/llm";
import { Spending } from "../spending";
import { catalogModels, formatModelRef, parseModelRef } from "./models";
import { type ModelInfo, type ModelRef } from "./model-info";
import { KEYED_PROVIDERS, type KeyedProvider } from "./provider";
import { AgentModels, type KeySource, type TeamModelChoice, forgetTeamModels, readChoice } from "./team";

/**
 * The Team page's Providers section (SPEC §12): a provider's key is set through the team
 * secrets door (Secrets.set: sealed, write-only, "set by / at"), as the secret
 * `provider-<provider>` of kind "provider-key", and the provider row names it; owners and
 * admins set keys, base URLs, the enabled models, the default, small and per-agent models,
 * and the spending limits. Members see which providers have a key (never a value) and the
 * models. Every read is of the actor's team only.
 */

export const Provider = z.enum(KEYED_PROVIDERS);
const ModelRefText = z.string().regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"').max(300);

export const SetKeyInput = z.object({
  provider: Provider,
  /** The key; omitted to keep the one set (a base URL changed) or for a keyless compatible server. */
  key: Secrets.Value.optional(),
  /** The provider's API (with its version path); null: the provider's own. */
  baseUrl: z.url().max(2000).nullable().optional(),
});

export const ModelsInput = z.object({
  enabled: z.array(ModelRefText).max(500),
  defaultModel: ModelRefText.nullable(),
  smallModel: ModelRefText.nullable(),
  agentModels: AgentModels.optional(),
});

export interface ProviderView {
  provider: KeyedProvider;
  source: KeySource;
  baseUrl: string | null;
  /** The key's secret: when and by whom it was set (never its value); null without a key of the team's. */
  key: { name: string; updatedAt: number; updatedBy: string | null } | null;
}

export interface Overview {
  providers: ProviderView[];
  /** Whether the operator offers its environment keys to teams without their own. */
  serverKeys: "all" | "none";
  catalog: ModelInfo[];
  choice: TeamModelChoice;
  limits: Spending.Limits;
  /** The agents a member picks (a model per agent may be set for them). */
  agents: string[];
}

export const secretName = (provider: KeyedProvider) => `provider-${provider}`;

async function details(ctx: Context): Promise<TeamModelDetails> {
  const models = ctx.models.forTeam ? await ctx.models.forTeam(ctx, ctx.actor.teamId) : undefined;
  if (!models?.details) throw new ParleyError("UNAVAILABLE", "This server has no per-team providers.");
  return models.details;
}

/** The team's providers, models and limits (any member: never a key's value). */
export async function overview(ctx: Context): Promise<Overview> {
  await requireRole(ctx, [...ADMIN_ROLES, "member"], "see the team's providers");
  const teamId = ctx.actor.teamId;
  const [detail, rows, secrets, choice, limits] = await Promise.all([
    details(ctx),
    ctx.db.teamProvider.findMany({ where: { teamId } }),
    Secrets.list(ctx),
    readChoice(ctx, teamId),
    Spending.limits(ctx, teamId),
  ]);
  const providers = KEYED_PROVIDERS.map((provider): ProviderView => {
    const row = rows.find((r) => r.provider === provider);
    const secret = row?.secretName ? secrets.find((s) => s.name === row.secretName) : undefined;
    return {
      provider,
      source: detail.sources[provider] ?? "none",
      baseUrl: row?.baseUrl ?? null,
      key: secret ? { name: secret.name, updatedAt: secret.updatedAt, updatedBy: secret.updatedBy?.name ?? null } : null,
    };
  });
  return { providers, serverKeys: detail.serverKeys, catalog: detail.catalog(), choice, limits, agents: ctx.agents.primaries().map((agent) => agent.name) };
}

/** Sets a provider's key and base URL for the team (owners and admins). */
export async function setKey(ctx: Context, input: z.input<typeof SetKeyInput>): Promise<void> {
  await requireRole(ctx, ADMIN_ROLES, "set provider keys");
  const { provider, key, baseUrl } = SetKeyInput.parse(input);
  const teamId = ctx.actor.teamId;
  if (baseUrl) {
    const url = new URL(baseUrl);
    if (url.protocol !== "https:" && !(url.protocol === "http:" && (await details(ctx)).allowHttp)) {
      throw ParleyError.invalid("A provider's base URL must be https:// (the operator allows http:// with providers.allowHttp).");
    }
    if (url.username || url.password) throw ParleyError.invalid("A provider's base URL cannot hold credentials: set the key instead.");
  }
  const existing = await ctx.db.teamProvider.findUnique({ where: { teamId_provider: { teamId, provider } } });
  if (!key && !existing?.secretName && provider !== "compatible") throw ParleyError.invalid(`A ${provider} key is needed.`);
  if (provider === "compatible" && !baseUrl && !existing?.baseUrl) throw ParleyError.invalid("An OpenAI-compatible server needs its base URL (e.g. https://openrouter.ai/api/v1).");
  if (key) await Secrets.set(ctx, { name: secretName(provider), kind: "provider-key", value: key });
  const now = new Date(ctx.clock.now());
  const data = {
    secretName: key ? secretName(provider) : (existing?.secretName ?? null),
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    updatedAt: now,
    updatedById: ctx.actor.userId,
  };
  await ctx.db.teamProvider.upsert({
    where: { teamId_provider: { teamId, provider } },
    create: { id: Id.ascending("provider"), teamId, provider, createdAt: now, ...data, baseUrl: baseUrl ?? null },
    update: data,
  });
  forgetTeamModels(ctx, teamId);
}

/** Removes the team's key and settings of a provider (owners and admins). */
export async function removeKey(ctx: Context, provider: KeyedProvider): Promise<void> {
  await requireRole(ctx, ADMIN_ROLES, "remove provider keys");
  const teamId = ctx.actor.teamId;
  const row = await ctx.db.teamProvider.findUnique({ where: { teamId_provider: { teamId, provider } } });
  if (!row) throw ParleyError.notFound("Provider", provider);
  await ctx.db.teamProvider.delete({ where: { id: row.id } });
  if (row.secretName) await ctx.db.teamSecret.deleteMany({ where: { teamId, name: row.secretName } });
  forgetTeamModels(ctx, teamId);
}

export type TestResult = { ok: true; model: string; ms: number; reply: string } | { ok: false; model: string; error: string };

const TEST_TIMEOUT_MS = 30_000;

/** The cheapest catalog model of a provider (the key test's default). */
function cheapest(models: ModelInfo[]): ModelInfo | undefined {
  return [...models].sort((a, b) => a.cost.input + a.cost.output - (b.cost.input + b.cost.output))[0];
}

/**
 * One cheap call with the team's key (owners and admins): a one-word prompt to `modelId`
 * or the provider's cheapest model. The result says what happened; an error's text never
 * holds the key.
 */
export async function test(ctx: Context, input: { provider: KeyedProvider; modelId?: string | undefined }): Promise<TestResult> {
  await requireRole(ctx, ADMIN_ROLES, "test provider keys");
  const detail = await details(ctx);
  const modelId = input.modelId ?? cheapest(catalogModels(input.provider))?.modelId ?? cheapest(detail.catalog().filter((m) => m.providerId === input.provider))?.modelId;
  if (!modelId) throw ParleyError.invalid(`Name a model of ${input.provider} to test with.`);
  const ref: ModelRef = { providerId: input.provider, modelId };
  const name = formatModelRef(ref);
  const key = await keyOf(ctx, input.provider);
  const hide = redactor(key ? [key] : []);
  const started = ctx.clock.now();
  try {
    const model = detail.load(ref);
    const reply = await LLM.text({ model, system: "You answer with one word.", messages: [{ role: "user", content: "Reply with the word OK." }], abortSignal: AbortSignal.timeout(TEST_TIMEOUT_MS) });
    return { ok: true, model: name, ms: ctx.clock.now() - started, reply: hide(reply.slice(0, 200)) };
  } catch (error) {
    const classified = classify(error, input.provider);
    return { ok: false, model: name, error: hide(`${classified.name}: ${classified.message}`) };
  }
}

async function keyOf(ctx: Context, provider: KeyedProvider): Promise<string | undefined> {
  const row = await ctx.db.teamProvider.findUnique({ where: { teamId_provider: { teamId: ctx.actor.teamId, provider } }, select: { secretName: true } });
  return row?.secretName ? Secrets.reveal(ctx, ctx.actor.teamId, row.secretName) : undefined;
}

/** Sets the team's enabled, default, small and per-agent models (owners and admins). */
export async function setModels(ctx: Context, input: z.input<typeof ModelsInput>): Promise<TeamModelChoice> {
  await requireRole(ctx, ADMIN_ROLES, "choose the team's models");
  const data = ModelsInput.parse(input);
  const enabled = [...new Set(data.enabled)];
  const agentModels = data.agentModels ?? {};
  for (const ref of [data.defaultModel, data.smallModel, ...Object.values(agentModels)]) {
    if (ref === null) continue;
    parseModelRef(ref);
    if (enabled.length > 0 && !enabled.includes(ref) && !ref.startsWith("offline/")) throw ParleyError.invalid(`Model "${ref}" is not among the enabled models.`);
  }
  const row = { enabled, defaultModel: data.defaultModel, smallModel: data.smallModel, agentModels, updatedAt: new Date(ctx.clock.now()), updatedById: ctx.actor.userId };
  await ctx.db.teamModelSettings.upsert({ where: { teamId: ctx.actor.teamId }, create: { teamId: ctx.actor.teamId, ...row }, update: row });
  forgetTeamModels(ctx, ctx.actor.teamId);
  return readChoice(ctx, ctx.actor.teamId);
}
