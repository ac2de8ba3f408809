/** What the catalog says of a model (server/provider/models.ts is the catalog; catalog.ts its vendors' entries). */

export interface ModelRef {
  providerId: string;
  modelId: string;
}

export interface ModelLimit {
  /** Context window in tokens; 0 = unknown (overflow detection off). */
  context: number;
  /** Input limit when smaller than the context window (e.g. gpt-5). */
  input?: number;
  /** Maximum output tokens; 0 = unknown. */
  output: number;
}

/** USD per million tokens. Reasoning tokens are billed at `reasoning` when set, else at the output price. */
export interface ModelCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning?: number;
}

export interface ModelInfo {
  providerId: string;
  modelId: string;
  name: string;
  limit: ModelLimit;
  cost: ModelCost;
  tools: boolean;
  reasoning: boolean;
  /** Whether the model accepts images in its input (vision); otherwise an attached image is described to it in text. */
  images: boolean;
  /** No catalog entry or override gives its prices: it costs 0 and the picker says "price unknown". */
  priceUnknown?: boolean;
}
