/**
 * How the UI names providers and describes a model's limits and prices (the Team page's
 * Providers section and the composer's model picker).
 */

export const PROVIDER_LABELS: Record<string, string> = {
  offline: "Built in",
  openai: "OpenAI",
  anthropic: "Anthropic",
  google: "Google",
  compatible: "OpenAI-compatible",
};

export function providerLabel(providerId: string): string {
  return PROVIDER_LABELS[providerId] ?? providerId;
}

interface Described {
  limit: { context: number; output: number };
  cost: { input: number; output: number };
  priceUnknown?: boolean | undefined;
}

const tokens = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/** "200K context · $3 / $15 per M" — or "price unknown" for a model no catalog entry prices. */
export function describeModel(model: Described): string {
  const context = model.limit.context > 0 ? `${tokens.format(model.limit.context)} context` : "context unknown";
  const price = model.priceUnknown ? "price unknown" : model.cost.input === 0 && model.cost.output === 0 ? "free" : `$${model.cost.input} / $${model.cost.output} per M`;
  return `${context} · ${price}`;
}

/** Models grouped by provider, in the order their providers first appear. */
export function byProvider<T extends { providerId: string }>(models: readonly T[]): { providerId: string; models: T[] }[] {
  const groups: { providerId: string; models: T[] }[] = [];
  for (const model of models) {
    const group = groups.find((g) => g.providerId === model.providerId);
    if (group) group.models.push(model);
    else groups.push({ providerId: model.providerId, models: [model] });
  }
  return groups;
}
