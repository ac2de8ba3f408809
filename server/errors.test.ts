import { describe, expect, it } from "vitest";
import { otherCopyError } from "../test/fixtures";
import { ParleyError, httpStatus, isParleyError } from "./errors";

describe("isParleyError", () => {
  it("recognises errors of this copy of the module", () => {
    expect(isParleyError(ParleyError.notFound("session", "ses_x"))).toBe(true);
    expect(isParleyError(new Error("plain"))).toBe(false);
    expect(isParleyError({ code: "NOT_FOUND", message: "look-alike" })).toBe(false);
  });

  it("recognises a ParleyError thrown by another bundled copy of the module", () => {
    // What a second Next.js bundle's class looks like from here: same brand, other class.
    const error = otherCopyError("ParleyError", "BUSY", "the session is running");
    expect(error instanceof ParleyError).toBe(false);
    expect(isParleyError(error)).toBe(true);
    if (isParleyError(error)) expect(httpStatus(error.code)).toBe(409);
  });
});

describe("httpStatus", () => {
  it("maps an instance that is shutting down (UNAVAILABLE) to 503, for the client to retry elsewhere", () => {
    expect(httpStatus("UNAVAILABLE")).toBe(503);
  });
});
