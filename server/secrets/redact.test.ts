import { describe, expect, it } from "vitest";
import { REDACTED, redactor } from "./redact";

const TOKEN = "ghp_Tok3n/with+odd=chars&more";

describe("redactor", () => {
  it("hides the value itself, every time it occurs", () => {
    const redact = redactor([TOKEN]);
    expect(redact(`fatal: ${TOKEN} and again ${TOKEN}`)).toBe(`fatal: ${REDACTED} and again ${REDACTED}`);
  });

  it("hides its URL-encoded forms (a credential in a URL), upper- and lower-case escapes", () => {
    const redact = redactor([TOKEN]);
    const encoded = encodeURIComponent(TOKEN);
    expect(encoded).not.toBe(TOKEN);
    const out = redact(`https://bot:${encoded}@git.example/repo.git https://bot:${encoded.toLowerCase().replace(/ghp_tok3n/, "ghp_Tok3n")}@x`);
    expect(out).not.toContain(encoded);
    expect(out).toBe(`https://bot:${REDACTED}@git.example/repo.git https://bot:${out.split("https://bot:")[2]}`);
    expect(redact(`x ${encoded.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())} y`)).toBe(`x ${REDACTED} y`);
  });

  it("hides a basic-auth header whatever the user name's length", () => {
    const redact = redactor([TOKEN]);
    for (const user of ["x", "ab", "bot", "parley-bot", "x-access-token"]) {
      const header = Buffer.from(`${user}:${TOKEN}`).toString("base64");
      const out = redact(`Authorization: Basic ${header}\n`);
      expect(out).toBe(`Authorization: Basic ${REDACTED}\n`);
    }
    expect(redact(Buffer.from(TOKEN).toString("base64"))).toBe(REDACTED);
  });

  it("hides a multi-line key, in JSON too, and each of its long lines", () => {
    const key = "-----BEGIN KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQC7\nZZZZ9876543210abcdefghij\n-----END KEY-----";
    const redact = redactor([key]);
    expect(redact(JSON.stringify({ stderr: key }))).toBe(`{"stderr":"${REDACTED}"}`);
    expect(redact("line: ZZZZ9876543210abcdefghij")).toBe(`line: ${REDACTED}`);
  });

  it("leaves text without a secret alone, and several values are all hidden", () => {
    const redact = redactor([TOKEN, "hunter2-password"]);
    expect(redact("nothing to see: ghp_other")).toBe("nothing to see: ghp_other");
    expect(redact(`a ${TOKEN} b hunter2-password c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
    expect(redactor([])("plain")).toBe("plain");
  });
});
