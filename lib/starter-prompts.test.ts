import { describe, expect, it } from "vitest";
import { parseMessage } from "../server/provider/offline/parse";
import { STARTER_PROMPTS } from "./starter-prompts";

describe("starter prompts", () => {
  it("are each a request the offline model carries out with its tools", () => {
    expect(STARTER_PROMPTS.length).toBeGreaterThanOrEqual(3);
    for (const { prompt } of STARTER_PROMPTS) {
      const plan = parseMessage(prompt);
      expect(plan.steps.flat().length, prompt).toBeGreaterThan(0);
      expect(plan.failure, prompt).toBeUndefined();
    }
    expect(parseMessage(STARTER_PROMPTS[0]!.prompt).steps).toEqual([[{ kind: "list", path: "." }, { kind: "read", filePath: "README.md" }]]);
  });
});
