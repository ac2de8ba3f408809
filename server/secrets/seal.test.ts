import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { Keyring, deriveKey, parseServerKey, seal, sealedKeyId, unseal } from "./seal";

const dir = mkdtempSync(path.join(os.tmpdir(), "parley-seal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = deriveKey(randomBytes(32));
const scope = { teamId: "tem_a", name: "github-token" };
const VALUE = "ghp_s3cr3t-VALUE-0123456789";

describe("seal", () => {
  it("round trip: a sealed value opens in its scope, and does not contain the plaintext", () => {
    const sealed = seal(key, scope, VALUE);
    expect(Buffer.from(sealed).includes(Buffer.from(VALUE))).toBe(false);
    expect(sealed[0]).toBe(1);
    expect(sealedKeyId(sealed)).toBe(key.id);
    expect(unseal(key, scope, sealed)).toBe(VALUE);
    // A fresh IV each time: the same value seals differently.
    expect(Buffer.from(seal(key, scope, VALUE)).equals(Buffer.from(sealed))).toBe(false);
  });

  it("tamper: any changed byte of IV, ciphertext or tag makes it fail to open", () => {
    const sealed = seal(key, scope, VALUE);
    for (const at of [9, 21, 25, sealed.length - 1]) {
      const changed = Uint8Array.from(sealed);
      changed[at] = (changed[at] ?? 0) ^ 0x01;
      expect(() => unseal(key, scope, changed)).toThrow(/does not open/);
    }
    expect(() => unseal(key, scope, sealed.subarray(0, 20))).toThrow(/not a sealed value/);
  });

  it("wrong AAD: another team or another name does not open it", () => {
    const sealed = seal(key, scope, VALUE);
    expect(() => unseal(key, { ...scope, teamId: "tem_b" }, sealed)).toThrow(/does not open/);
    expect(() => unseal(key, { ...scope, name: "gitlab-token" }, sealed)).toThrow(/does not open/);
    expect(() => unseal(deriveKey(randomBytes(32)), scope, sealed)).toThrow(/another key/);
  });

  it("parses hex and base64 keys of at least 32 bytes, naming the variable but never the key", () => {
    const raw = randomBytes(32);
    expect(parseServerKey(raw.toString("hex"), "K").equals(raw)).toBe(true);
    expect(parseServerKey(raw.toString("base64"), "K").equals(raw)).toBe(true);
    expect(parseServerKey(raw.toString("base64url"), "K").equals(raw)).toBe(true);
    const short = randomBytes(16).toString("hex");
    expect(() => parseServerKey(short, "PARLEY_SECRET_KEY")).toThrow(/PARLEY_SECRET_KEY must hold at least 32 bytes/);
    try {
      parseServerKey(short, "PARLEY_SECRET_KEY");
    } catch (error) {
      expect((error as Error).message).not.toContain(short);
    }
    expect(() => parseServerKey("not a key!", "K")).toThrow(/neither hex nor base64/);
  });
});

describe("Keyring", () => {
  it("makes the key file on first use (mode 0600) and keeps using it", async () => {
    const keyFile = path.join(dir, "first", "secret-key");
    rmSync(path.dirname(keyFile), { recursive: true, force: true });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(path.dirname(keyFile));
    const ring = new Keyring({ keyFile });
    const sealed = await ring.seal(scope, VALUE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(parseServerKey(readFileSync(keyFile, "utf8"), "file").length).toBe(32);
    expect(await new Keyring({ keyFile }).open(scope, sealed)).toBe(VALUE);
  });

  it("two keyrings starting together on one data directory agree on one key", async () => {
    const keyFile = path.join(dir, "secret-key-race");
    const rings = Array.from({ length: 8 }, () => new Keyring({ keyFile }));
    const ids = await Promise.all(rings.map((ring) => ring.currentId()));
    expect(new Set(ids).size).toBe(1);
  });

  it("opens values sealed under a previous key by key id; seals only under the current key", async () => {
    const a = randomBytes(32);
    const b = randomBytes(32);
    const keyFile = path.join(dir, "unused");
    const old = await new Keyring({ current: a, keyFile }).seal(scope, VALUE);
    await expect(new Keyring({ current: b, keyFile }).open(scope, old)).rejects.toThrow(/neither the current secret key nor one of PARLEY_SECRET_KEY_PREVIOUS/);
    const rotated = new Keyring({ current: b, previous: [a], keyFile });
    expect(await rotated.open(scope, old)).toBe(VALUE);
    expect(sealedKeyId(await rotated.seal(scope, VALUE))).toBe(deriveKey(b).id);
  });
});
