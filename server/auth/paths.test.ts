import { describe, expect, it } from "vitest";
import { access, safeNext } from "./paths";

describe("route access", () => {
  it("keeps share links, sign-in, sign-up, invitations, better-auth and tRPC's own checks public", () => {
    for (const path of ["/share/shr_1", "/api/share/shr_1/events", "/api/auth/sign-in/email", "/api/trpc/share.page", "/sign-in", "/sign-up", "/invite/inv_1"]) {
      expect(access(path), path).toBe("public");
    }
  });

  it("asks a sign-in for /welcome and membership for everything else, new routes included", () => {
    expect(access("/welcome")).toBe("signed-in");
    for (const path of ["/", "/sessions/ses_1", "/dashboard", "/shares", "/team", "/api/sessions/ses_1/events", "/api/teams/tem_1/events", "/a-page-added-later", "/sharex", "/sign-in-later", "/api/authx"]) {
      expect(access(path), path).toBe("member");
    }
  });
});

describe("safeNext", () => {
  it("keeps paths of this site and drops anything that could leave it", () => {
    expect(safeNext("/team?x=1")).toBe("/team?x=1");
    for (const bad of [undefined, null, "", "https://evil.example", "//evil.example/x", "/\\evil.example", "team"]) expect(safeNext(bad), String(bad)).toBe("/");
  });

  it("resolves next against this site as a browser would, so whitespace or dots the URL parser drops cannot lead off-site", () => {
    for (const bad of ["/\t/example.com", "/\n/example.com", "/\r\n/example.com/x?y=1", "\t//example.com", "/\\/example.com", "/\t\\example.com", "/.//example.com", "/%2E//example.com", "/ /example.com"]) {
      const next = safeNext(bad);
      expect(new URL(next, "https://parley.example").origin, JSON.stringify(bad)).toBe("https://parley.example");
      expect(next.startsWith("//"), JSON.stringify(bad)).toBe(false);
    }
    expect(safeNext("/\t/example.com")).toBe("/");
    // What stays on the site keeps its path, query and fragment, in the form the browser reads.
    expect(safeNext("/invite/inv_1")).toBe("/invite/inv_1");
    expect(safeNext("/sessions/ses_1?tab=diff#part")).toBe("/sessions/ses_1?tab=diff#part");
    expect(safeNext("/a/../team")).toBe("/team");
  });
});
