import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSettings } from "./assemble";
import { ConfigError, loadConfig } from "./config";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "parley-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("stream window", () => {
  it("is unset by default, read from the file, and the environment wins; the settings carry it to the writer", () => {
    expect(loadConfig({}, dir).stream.windowMs).toBeUndefined();
    expect("streamWindowMs" in configSettings(loadConfig({ PARLEY_DATA_DIR: path.join(dir, "data") }, dir))).toBe(false);
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ stream: { windowMs: 40 } }));
    expect(loadConfig({}, dir).stream.windowMs).toBe(40);
    const cfg = loadConfig({ PARLEY_STREAM_WINDOW_MS: "0", PARLEY_DATA_DIR: path.join(dir, "data") }, dir);
    expect(cfg.stream.windowMs).toBe(0);
    expect(configSettings(cfg).streamWindowMs).toBe(0);
  });

  it("refuses a window that is not a whole number of milliseconds up to 1000", () => {
    expect(() => loadConfig({ PARLEY_STREAM_WINDOW_MS: "-1" }, dir)).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_STREAM_WINDOW_MS: "5000" }, dir)).toThrow(ConfigError);
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ stream: { windowMs: 2.5 } }));
    expect(() => loadConfig({}, dir)).toThrow(ConfigError);
  });
});

describe("trusted proxies", () => {
  it("are none by default, read from the file, and the environment (comma-separated) wins", () => {
    expect(loadConfig({}, dir).trustedProxies).toEqual([]);
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ trustedProxies: ["10.0.0.0/8"] }));
    expect(loadConfig({}, dir).trustedProxies).toEqual(["10.0.0.0/8"]);
    expect(loadConfig({ PARLEY_TRUSTED_PROXIES: " 192.0.2.1, ::1 ,fd00::/8" }, dir).trustedProxies).toEqual(["192.0.2.1", "::1", "fd00::/8"]);
  });

  it("refuses an entry that is not an address or a CIDR range, naming it", () => {
    for (const bad of ["proxy.example", "10.0.0.0/33", "10.0.0.1/", "::1/129", "10.0.0.0/8/8"]) {
      expect(() => loadConfig({ PARLEY_TRUSTED_PROXIES: bad }, dir), bad).toThrow(/PARLEY_TRUSTED_PROXIES/);
    }
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ trustedProxies: ["*"] }));
    expect(() => loadConfig({}, dir)).toThrow(ConfigError);
  });
});

describe("shutdown grace period", () => {
  it("is 10 s by default and PARLEY_SHUTDOWN_GRACE_MS sets it (0 stops running turns at once)", () => {
    expect(loadConfig({}, dir).shutdown.graceMs).toBe(10_000);
    expect(loadConfig({ PARLEY_SHUTDOWN_GRACE_MS: "2500" }, dir).shutdown.graceMs).toBe(2_500);
    expect(loadConfig({ PARLEY_SHUTDOWN_GRACE_MS: "0" }, dir).shutdown.graceMs).toBe(0);
  });

  it("refuses a value that is not a whole number of milliseconds up to ten minutes", () => {
    for (const bad of ["-1", "1.5", "600001", "soon"]) expect(() => loadConfig({ PARLEY_SHUTDOWN_GRACE_MS: bad }, dir), bad).toThrow(/PARLEY_SHUTDOWN_GRACE_MS/);
  });
});

describe("sandbox user", () => {
  it("is 65500/65500 by default, read from the file, and PARLEY_SANDBOX_UID/GID win", () => {
    expect(loadConfig({}, dir).sandbox.user).toEqual({ uid: 65500, gid: 65500 });
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ sandbox: { uid: 4000, gid: 4001 } }));
    expect(loadConfig({}, dir).sandbox.user).toEqual({ uid: 4000, gid: 4001 });
    expect(loadConfig({ PARLEY_SANDBOX_UID: "5000", PARLEY_SANDBOX_GID: "5001" }, dir).sandbox.user).toEqual({ uid: 5000, gid: 5001 });
  });

  it("refuses root, negative, fractional, too large and non-numeric ids", () => {
    for (const value of ["0", "-1", "1.5", "2147483647", "4294967295", "abc", ""]) {
      expect(() => loadConfig({ PARLEY_SANDBOX_UID: value }, dir), value).toThrow(ConfigError);
      expect(() => loadConfig({ PARLEY_SANDBOX_GID: value }, dir), value).toThrow(ConfigError);
    }
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ sandbox: { uid: 0 } }));
    expect(() => loadConfig({}, dir)).toThrow(ConfigError);
  });
});

describe("data directory", () => {
  it("is closed to other users of the host: no listing, no writing (traversal only, for the embedded database's user)", () => {
    const dataDir = path.join(dir, "data");
    mkdirSync(dataDir, { mode: 0o777 });
    chmodSync(dataDir, 0o777);
    configSettings(loadConfig({ PARLEY_DATA_DIR: dataDir }, dir));
    expect(statSync(dataDir).mode & 0o777).toBe(0o711);
  });
});

describe("provider limits", () => {
  it("have defaults (4 MiB events and parts, 8 MiB before output, 64 MiB answers, 10 min steps, 5 min idle); the file sets them and the environment wins", () => {
    expect(loadConfig({}, dir).provider).toEqual({
      maxEventChars: 4 * 1024 * 1024,
      maxBytesBeforeOutput: 8 * 1024 * 1024,
      maxAnswerBytes: 64 * 1024 * 1024,
      maxPartChars: 4 * 1024 * 1024,
      stepTimeoutMs: 600_000,
      idleTimeoutMs: 300_000,
    });
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ provider: { stepTimeoutMs: 120_000, maxPartChars: 1_000_000 } }));
    expect(loadConfig({}, dir).provider).toMatchObject({ stepTimeoutMs: 120_000, maxPartChars: 1_000_000, idleTimeoutMs: 300_000 });
    expect(loadConfig({ PARLEY_PROVIDER_STEP_TIMEOUT_MS: "5000", PARLEY_PROVIDER_IDLE_TIMEOUT_MS: "2000", PARLEY_PROVIDER_MAX_EVENT_CHARS: "65536" }, dir).provider).toMatchObject({
      stepTimeoutMs: 5_000,
      idleTimeoutMs: 2_000,
      maxEventChars: 65_536,
      maxPartChars: 1_000_000,
    });
  });

  it("refuses sizes under 1 KiB or over 1 GiB, times under 100 ms or over a day, and unknown keys", () => {
    for (const [name, bad] of [["PARLEY_PROVIDER_MAX_ANSWER_BYTES", "100"], ["PARLEY_PROVIDER_MAX_PART_CHARS", String(2 * 1024 ** 3)], ["PARLEY_PROVIDER_STEP_TIMEOUT_MS", "10"], ["PARLEY_PROVIDER_IDLE_TIMEOUT_MS", "soon"]] as const) {
      expect(() => loadConfig({ [name]: bad }, dir), name).toThrow(new RegExp(name));
    }
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ provider: { redirects: "follow" } }));
    expect(() => loadConfig({}, dir)).toThrow(ConfigError);
  });
});

describe("secret keys", () => {
  const key = Buffer.alloc(32, 7);
  it("are unset by default (the key file is used); PARLEY_SECRET_KEY takes hex or base64, PARLEY_SECRET_KEY_PREVIOUS a comma-separated list", () => {
    expect(loadConfig({}, dir).secretKeys).toEqual({ current: undefined, previous: [] });
    const cfg = loadConfig({ PARLEY_SECRET_KEY: key.toString("hex"), PARLEY_SECRET_KEY_PREVIOUS: ` ${key.toString("base64")} ,${Buffer.alloc(48, 1).toString("base64url")}` }, dir);
    expect(cfg.secretKeys.current?.equals(key)).toBe(true);
    expect(cfg.secretKeys.previous.map((old) => old.length)).toEqual([32, 48]);
  });

  it("refuses a key under 32 bytes or not hex/base64, naming the variable and never the key", () => {
    const short = Buffer.alloc(16, 9).toString("hex");
    for (const env of [{ PARLEY_SECRET_KEY: short }, { PARLEY_SECRET_KEY_PREVIOUS: `${key.toString("hex")},${short}` }, { PARLEY_SECRET_KEY: "not a key at all!" }]) {
      let message = "";
      try {
        loadConfig(env, dir);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toMatch(/PARLEY_SECRET_KEY/);
      expect(message).not.toContain(short);
      expect(message).not.toContain(key.toString("hex"));
    }
  });
});

describe("git remotes", () => {
  it("local remotes and http:// are off by default, read from the file, the environment wins, and the settings carry them", () => {
    expect(loadConfig({}, dir).git).toEqual({ allowLocalRemotes: false, allowHttp: false });
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ git: { allowLocalRemotes: true } }));
    expect(loadConfig({}, dir).git).toEqual({ allowLocalRemotes: true, allowHttp: false });
    const cfg = loadConfig({ PARLEY_GIT_ALLOW_LOCAL_REMOTES: "false", PARLEY_GIT_ALLOW_HTTP: "true", PARLEY_DATA_DIR: path.join(dir, "data") }, dir);
    expect(cfg.git).toEqual({ allowLocalRemotes: false, allowHttp: true });
    expect(configSettings(cfg).git).toEqual({ allowLocalRemotes: false, allowHttp: true });
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ git: { allowFtp: true } }));
    expect(() => loadConfig({}, dir)).toThrow(ConfigError);
  });
});

describe("instructions", () => {
  it("are none by default with URLs off; the file lists them, instructionUrls or PARLEY_INSTRUCTION_URLS (which wins) turns URLs on; the settings carry them", () => {
    expect(loadConfig({}, dir).instructions).toEqual({ paths: [], allowUrls: false });
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ instructions: ["docs/*.md", "https://example.com/rules.md"], instructionUrls: true }));
    expect(loadConfig({}, dir).instructions).toEqual({ paths: ["docs/*.md", "https://example.com/rules.md"], allowUrls: true });
    const cfg = loadConfig({ PARLEY_INSTRUCTION_URLS: "false", PARLEY_DATA_DIR: path.join(dir, "data") }, dir);
    expect(cfg.instructions.allowUrls).toBe(false);
    expect(configSettings(cfg).instructions).toEqual({ paths: ["docs/*.md", "https://example.com/rules.md"], allowUrls: false });
  });

  it("refuses an entry that is not a non-empty string, and an unknown switch value", () => {
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ instructions: [""] }));
    expect(() => loadConfig({}, dir)).toThrow(ConfigError);
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ instructions: "AGENTS.md" }));
    expect(() => loadConfig({}, dir)).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_INSTRUCTION_URLS: "yes" }, dir)).toThrow(ConfigError);
  });
});

describe("workspace limits", () => {
  it("keep 50 live workspaces and 1 spare tree per project by default; the file sets them, the environment wins, 0 spares turns them off; the settings carry them", () => {
    expect(loadConfig({}, dir).limits).toMatchObject({ workspacesPerProject: 50, spareWorkspaces: 1 });
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ limits: { workspacesPerProject: 9, spareWorkspaces: 2 } }));
    expect(loadConfig({}, dir).limits).toMatchObject({ workspacesPerProject: 9, spareWorkspaces: 2 });
    const cfg = loadConfig({ PARLEY_SPARE_WORKSPACES: "0", PARLEY_DATA_DIR: path.join(dir, "data") }, dir);
    expect(cfg.limits.spareWorkspaces).toBe(0);
    expect(configSettings(cfg).limits).toMatchObject({ workspacesPerProject: 9, spareWorkspaces: 0 });
    expect(() => loadConfig({ PARLEY_SPARE_WORKSPACES: "9" }, dir)).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_SPARE_WORKSPACES: "-1" }, dir)).toThrow(ConfigError);
  });
});

describe("tool servers (mcp)", () => {
  it("accepts OpenCode's `mcp` block unchanged; private addresses are refused unless the file or the environment allows them", () => {
    const block = {
      github: { type: "remote", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer {env:GH_TOKEN}" }, oauth: false, enabled: true },
      linear: { type: "remote", url: "https://mcp.linear.app/sse", oauth: { clientId: "abc", scope: "read" }, timeout: 5000 },
      files: { type: "local", command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."], environment: { DEBUG: "1" }, enabled: false },
    };
    expect(loadConfig({}, dir).mcp).toEqual({ servers: {}, allowPrivateAddresses: false });
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ mcp: block, toolServers: { allowPrivateAddresses: true } }));
    const cfg = loadConfig({ PARLEY_DATA_DIR: path.join(dir, "data") }, dir);
    expect(cfg.mcp).toEqual({ servers: block, allowPrivateAddresses: true });
    expect(configSettings(cfg).mcp).toEqual(cfg.mcp);
    expect(loadConfig({ PARLEY_MCP_ALLOW_PRIVATE: "false" }, dir).mcp.allowPrivateAddresses).toBe(false);
  });

  it("refuses a server of an unknown type or without its URL or command", () => {
    for (const server of [{ type: "stdio", command: ["x"] }, { type: "remote" }, { type: "local", command: [] }, { type: "remote", url: "ftp://example.com" }]) {
      writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ mcp: { bad: server } }));
      expect(() => loadConfig({}, dir), JSON.stringify(server)).toThrow(ConfigError);
    }
  });
});
