import { describe, expect, it } from "vitest";
import { otherCopyError } from "../../test/fixtures";
import { ParleyError } from "../errors";
import { ProviderLimitError, isProviderLimitError } from "./limits";

describe("isProviderLimitError", () => {
  it("recognises one of this copy of the module, not another ParleyError nor a plain error of its name", () => {
    expect(isProviderLimitError(ProviderLimitError.over("maxAnswerBytes", "sent more than 10 bytes", 10))).toBe(true);
    expect(isProviderLimitError(ParleyError.invalid("no"))).toBe(false);
    const plain = new Error("look-alike");
    plain.name = "ProviderLimitError";
    expect(isProviderLimitError(plain)).toBe(false);
  });

  it("recognises one thrown by another bundled copy of the module (the ParleyError brand and its class's name)", () => {
    const error = otherCopyError("ProviderLimitError", "INVALID", "The model's provider redirected more than 5 times");
    expect(error instanceof ProviderLimitError).toBe(false);
    expect(isProviderLimitError(error)).toBe(true);
  });
});
