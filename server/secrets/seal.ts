import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { chmod, link, mkdir, open, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { ParleyError } from "../errors";

/**
 * Sealing team secrets: AES-256-GCM under a key derived (HKDF-SHA256) from the server's
 * secret key. The server's key is PARLEY_SECRET_KEY when set, else a key file
 * `<dataDir>/secret-key` made on first use — never the database, so a dump of the
 * database alone opens nothing.
 *
 * A sealed value is: version (1 byte) · key id (8 bytes: the start of SHA-256 of the
 * derived key) · IV (12 bytes) · ciphertext · tag (16 bytes). Its additional authenticated
 * data is the team and the secret's name, so a sealed value copied to another team's row
 * or another name does not open. Old keys (PARLEY_SECRET_KEY_PREVIOUS) still open values
 * sealed under them, found by key id; `npm run secrets:rotate` re-seals every value under
 * the current key.
 */

export const SEAL_VERSION = 1;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES + IV_BYTES;
/** The server's secret key must carry at least this much entropy (bytes). */
export const MIN_KEY_BYTES = 32;
const HKDF_SALT = Buffer.from("parley.team-secrets");
const HKDF_INFO = Buffer.from("parley team secrets: AES-256-GCM v1");

/** Where a sealed value belongs: it opens only there. */
export interface SealScope {
  teamId: string;
  name: string;
}

/** One derived key and its id. */
export interface SealKey {
  /** Hex of the key id written into every value sealed under it. */
  id: string;
  key: Buffer;
}

/**
 * A server secret key as written in PARLEY_SECRET_KEY, PARLEY_SECRET_KEY_PREVIOUS or the
 * key file: hex (an even number of hex digits) or base64 / base64url, at least 32 bytes.
 * Throws with a message naming `label` — never the key.
 */
export function parseServerKey(text: string, label: string): Buffer {
  const value = text.trim();
  let bytes: Buffer;
  if (/^(?:[0-9a-fA-F]{2})+$/.test(value)) bytes = Buffer.from(value, "hex");
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) bytes = Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  else throw new Error(`${label} is neither hex nor base64`);
  if (bytes.length < MIN_KEY_BYTES) throw new Error(`${label} must hold at least ${MIN_KEY_BYTES} bytes (it holds ${bytes.length})`);
  return bytes;
}

/** The sealing key derived from a server secret key, with its id. */
export function deriveKey(serverKey: Buffer): SealKey {
  const key = Buffer.from(hkdfSync("sha256", serverKey, HKDF_SALT, HKDF_INFO, 32));
  return { id: createHash("sha256").update(key).digest().subarray(0, KEY_ID_BYTES).toString("hex"), key };
}

function aad(scope: SealScope): Buffer {
  // Lengths first: ("ab", "c") and ("a", "bc") never share a byte string.
  return Buffer.from(JSON.stringify(["parley.team-secret", scope.teamId, scope.name]));
}

export function seal(key: SealKey, scope: SealScope, plaintext: string): Uint8Array<ArrayBuffer> {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(scope));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return new Uint8Array(Buffer.concat([Buffer.from([SEAL_VERSION]), Buffer.from(key.id, "hex"), iv, body, cipher.getAuthTag()]));
}

/** The key id a sealed value names (hex), or throws CORRUPT when it is no sealed value. */
export function sealedKeyId(sealed: Uint8Array): string {
  const bytes = Buffer.from(sealed);
  if (bytes.length < HEADER_BYTES + TAG_BYTES || bytes[0] !== SEAL_VERSION) {
    throw new ParleyError("CORRUPT", "A team secret's stored value is not a sealed value of this server's format.");
  }
  return bytes.subarray(1, 1 + KEY_ID_BYTES).toString("hex");
}

/** Opens a sealed value with the key its id names; CORRUPT when it does not open in `scope`. */
export function unseal(key: SealKey, scope: SealScope, sealed: Uint8Array): string {
  const bytes = Buffer.from(sealed);
  if (sealedKeyId(bytes) !== key.id) throw new ParleyError("CORRUPT", "A team secret was sealed under another key.");
  const iv = bytes.subarray(1 + KEY_ID_BYTES, HEADER_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad(scope));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch (error) {
    throw new ParleyError("CORRUPT", `Team secret "${scope.name}" does not open: it was changed, or belongs to another team or name.`, { cause: error });
  }
}

/** Where the server's secret keys come from. */
export interface KeySource {
  /** PARLEY_SECRET_KEY, parsed; when unset, the key file. */
  current?: Buffer | undefined;
  /** PARLEY_SECRET_KEY_PREVIOUS, parsed: keys that still open, never seal. */
  previous?: Buffer[] | undefined;
  /** The key file used when `current` is unset: `<dataDir>/secret-key`. */
  keyFile: string;
}

/**
 * The server's sealing keys: the current one (sealing and opening) and the previous ones
 * (opening only), loaded on first use — the key file is made then when it is needed.
 */
export class Keyring {
  private loaded: Promise<{ current: SealKey; byId: Map<string, SealKey> }> | undefined;
  constructor(private readonly source: KeySource) {}

  private keys() {
    this.loaded ??= (async () => {
      const current = deriveKey(this.source.current ?? (await keyFromFile(this.source.keyFile)));
      const byId = new Map<string, SealKey>();
      for (const old of this.source.previous ?? []) {
        const derived = deriveKey(old);
        byId.set(derived.id, derived);
      }
      byId.set(current.id, current);
      return { current, byId };
    })().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  /** The id of the key new values are sealed under (hex). */
  async currentId(): Promise<string> {
    return (await this.keys()).current.id;
  }

  async seal(scope: SealScope, plaintext: string): Promise<Uint8Array<ArrayBuffer>> {
    return seal((await this.keys()).current, scope, plaintext);
  }

  /** Opens a value sealed under the current key or a previous one; CORRUPT otherwise. */
  async open(scope: SealScope, sealed: Uint8Array): Promise<string> {
    const id = sealedKeyId(sealed);
    const key = (await this.keys()).byId.get(id);
    if (!key) {
      throw new ParleyError(
        "CORRUPT",
        `Team secret "${scope.name}" was sealed under key ${id}, which is neither the current secret key nor one of PARLEY_SECRET_KEY_PREVIOUS.`,
      );
    }
    return unseal(key, scope, sealed);
  }
}

/**
 * The key file's key, made on first use: 32 random bytes (base64) written to a private
 * temporary file and linked into place, so instances sharing the data directory that
 * start together agree on one key and none reads a half-written file.
 */
async function keyFromFile(file: string): Promise<Buffer> {
  try {
    return parseServerKey(await readFile(file, "utf8"), file);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = path.join(path.dirname(file), `.secret-key-${process.pid}-${randomBytes(6).toString("hex")}`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(`${randomBytes(MIN_KEY_BYTES).toString("base64")}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(temporary, 0o600);
    await link(temporary, file);
  } catch (error) {
    // Another instance linked its key first: that one is the key.
    if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  return parseServerKey(await readFile(file, "utf8"), file);
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}
