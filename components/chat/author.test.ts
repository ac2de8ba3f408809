import { describe, expect, it } from "vitest";
import { authorLabel, initials } from "./author";

describe("message authors", () => {
  const ada = { id: "usr_ada", name: "Ada Lovelace" };
  it("reads You for the viewer's own message, the name for anyone else's, and on a share page (no viewer)", () => {
    expect(authorLabel(ada, "usr_ada")).toBe("You");
    expect(authorLabel(ada, "usr_bob")).toBe("Ada Lovelace");
    expect(authorLabel(ada, undefined)).toBe("Ada Lovelace");
    expect(authorLabel(undefined, "usr_ada")).toBe("Team member");
  });

  it("makes avatar initials from the first and last word", () => {
    expect(initials("Ada Lovelace")).toBe("AL");
    expect(initials("grace")).toBe("G");
    expect(initials("  Jean Luc Picard ")).toBe("JP");
    expect(initials("")).toBe("");
  });
});
