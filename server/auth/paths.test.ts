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
});
