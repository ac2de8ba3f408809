import { type FakeOpenAI, startFakeOpenAI } from "../../test/fake-openai";

/**
 * The fake OpenAI-compatible server the e2e web server sends `compatible/*` models to
 * (playwright.config.ts: OPENAI_BASE_URL on this port). A spec starts it, scripts its
 * replies and reads what the model was sent.
 */
export const FAKE_OPENAI_PORT = Number(process.env.PARLEY_E2E_OPENAI_PORT ?? Number(process.env.PARLEY_E2E_PORT ?? 3100) + 1);

/** A model that sees images (e2e/parley.config.json), answered by the fake server. */
export const VISION_MODEL = { key: "compatible/e2e-vision", label: "E2E vision model (compatible/e2e-vision)" } as const;

export function startFakeProvider(): Promise<FakeOpenAI> {
  return startFakeOpenAI({ port: FAKE_OPENAI_PORT });
}
