import { describe, expect, it } from "vitest";
import { transcriptParts } from "./step-parts";

type P = { type: string; reason?: string; id: string };
const start = (id: string): P => ({ type: "step-start", id });
const finish = (id: string, reason = "stop"): P => ({ type: "step-finish", reason, id });
const text = (id: string): P => ({ type: "text", id });

describe("transcriptParts", () => {
  it("leaves out the first step's start and every ordinary step end", () => {
    const parts = [start("1"), text("2"), finish("3", "tool-calls"), start("4"), text("5"), finish("6")];
    expect(transcriptParts(parts).map((p) => p.id)).toEqual(["2", "4", "5"]);
  });

  it("keeps an ending worth knowing about", () => {
    expect(transcriptParts([start("1"), text("2"), finish("3", "length")]).map((p) => p.id)).toEqual(["2", "3"]);
  });

  it("shows no separator before anything was said", () => {
    expect(transcriptParts([start("1"), finish("2", "tool-calls"), start("3"), text("4")]).map((p) => p.id)).toEqual(["4"]);
  });
});
