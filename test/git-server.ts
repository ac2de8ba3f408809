import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

/**
 * A real git server for tests: bare repositories under `root`, served over git's smart
 * HTTP protocol by the system's `git http-backend` (a CGI program) behind a small Node
 * HTTP server that asks for HTTP basic auth, and recording every request's Authorization
 * header. The same bare repositories are reachable as `file://` URLs. Pushes work (the
 * CGI gets REMOTE_USER), gzip request bodies included.
 */

export const HTTP_BACKEND = "/usr/lib/git-core/git-http-backend";

export interface GitRequest {
  method: string;
  /** The path and query as asked. */
  url: string;
  /** The Authorization header as sent (undefined when none). */
  authorization: string | undefined;
  /** The request body's Content-Encoding (git gzips large ones). */
  encoding: string | undefined;
  /** The HTTP status answered. */
  status: number;
}

export interface GitServer {
  /** Base URL, e.g. http://127.0.0.1:40123 (a repository is `${url}/<name>.git`). */
  url: string;
  /** Folder of the bare repositories. */
  root: string;
  /** Every request so far, in order. */
  requests: GitRequest[];
  /** Path prefix → URL: a request under the prefix is answered with a 302 to the URL plus the rest of its path. */
  redirects: Map<string, string>;
  /** A repository's smart-HTTP URL. */
  httpUrl(name: string): string;
  /** A repository's file:// URL. */
  fileUrl(name: string): string;
  close(): Promise<void>;
}

export interface GitServerOptions {
  /** Accepted user → password (or token); empty: no authentication asked. */
  users: Record<string, string>;
  /** The folder of the repositories (a new temporary one when unset; removed by close then). */
  root?: string;
}

function basicUser(header: string | undefined, users: Record<string, string>): string | undefined {
  const match = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  const user = decoded.slice(0, colon);
  return Object.hasOwn(users, user) && users[user] === decoded.slice(colon + 1) ? user : undefined;
}

/** Splits a CGI answer's header block into a status and headers (RFC 3875 §6). */
function cgiHeaders(block: string): { status: number; headers: [string, string][] } {
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 500;
    else headers.push([name, value]);
  }
  return { status, headers };
}

export async function startGitServer(options: GitServerOptions): Promise<GitServer> {
  const ownRoot = options.root === undefined;
  const root = options.root ?? mkdtempSync(path.join(os.tmpdir(), "parley-git-server-"));
  const requests: GitRequest[] = [];
  const redirects = new Map<string, string>();
  const needsAuth = Object.keys(options.users).length > 0;

  const server = http.createServer((req, res) => {
    const record: GitRequest = { method: req.method ?? "GET", url: req.url ?? "/", authorization: req.headers.authorization, encoding: req.headers["content-encoding"], status: 0 };
    requests.push(record);
    for (const [prefix, target] of redirects) {
      if (!(req.url ?? "").startsWith(prefix)) continue;
      record.status = 302;
      res.writeHead(302, { Location: `${target}${(req.url ?? "").slice(prefix.length)}` });
      res.end();
      req.resume();
      return;
    }
    const user = basicUser(req.headers.authorization, options.users);
    if (needsAuth && !user) {
      record.status = 401;
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"', "Content-Type": "text/plain" });
      res.end("authentication required\n");
      req.resume();
      return;
    }
    const url = new URL(req.url ?? "/", "http://git.test");
    const env: NodeJS.ProcessEnv = {
      NODE_ENV: process.env.NODE_ENV,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      HOME: root,
      PATH_INFO: decodeURIComponent(url.pathname),
      REQUEST_METHOD: req.method ?? "GET",
      QUERY_STRING: url.search.replace(/^\?/, ""),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_USER: user ?? "anonymous",
      REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
      SERVER_PROTOCOL: "HTTP/1.1",
    };
    if (req.headers["content-length"] !== undefined) env.CONTENT_LENGTH = req.headers["content-length"];
    if (req.headers["content-encoding"] !== undefined) env.HTTP_CONTENT_ENCODING = req.headers["content-encoding"];
    const protocol = req.headers["git-protocol"];
    if (typeof protocol === "string") env.HTTP_GIT_PROTOCOL = protocol;
    const cgi = spawn(HTTP_BACKEND, [], { env, stdio: ["pipe", "pipe", "pipe"] });
    req.pipe(cgi.stdin);
    cgi.stdin.on("error", () => undefined); // the CGI may answer (an error) before reading the whole body
    let head = Buffer.alloc(0);
    let started = false;
    const stderr: Buffer[] = [];
    cgi.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (started) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf("\r\n\r\n");
      const lf = head.indexOf("\n\n");
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? { at: crlf, skip: 4 } : lf >= 0 ? { at: lf, skip: 2 } : undefined;
      if (!end) return;
      const parsed = cgiHeaders(head.subarray(0, end.at).toString("latin1"));
      record.status = parsed.status;
      started = true;
      res.writeHead(parsed.status, parsed.headers);
      res.write(head.subarray(end.at + end.skip));
    });
    cgi.on("close", (code) => {
      if (!started) {
        record.status = 500;
        res.writeHead(500, { "Content-Type": "text/plain" });
        res.end(`git http-backend failed (exit ${code}): ${Buffer.concat(stderr).toString("utf8")}`);
        return;
      }
      res.end();
    });
    cgi.on("error", (error) => {
      if (started) return res.destroy(error);
      record.status = 500;
      res.writeHead(500);
      res.end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    url: base,
    root,
    requests,
    redirects,
    httpUrl: (name) => `${base}/${name}.git`,
    fileUrl: (name) => `file://${path.join(root, `${name}.git`)}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownRoot) rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * git for the harness (local work only: it blocks the event loop, so never against this
 * process's own server — use gitAsync): no user or system configuration, a fixed identity.
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000, env: harnessEnv(cwd) });
}

/** git for the harness, without blocking (a client of this process's own server). */
export function gitAsync(cwd: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, encoding: "utf8", timeout: 60_000, env: harnessEnv(cwd) }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(" ")}: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

function harnessEnv(cwd: string): NodeJS.ProcessEnv {
  return {
    NODE_ENV: process.env.NODE_ENV,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: cwd,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "Test Author",
    GIT_AUTHOR_EMAIL: "author@git.test",
    GIT_COMMITTER_NAME: "Test Author",
    GIT_COMMITTER_EMAIL: "author@git.test",
  };
}

export type Files = Record<string, string>;

function writeFiles(dir: string, files: Files): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
}

/**
 * A bare repository `<root>/<name>.git`: one commit of `files` on `head`, then for each
 * other branch one more commit (from `head`) writing its files. HEAD names `head`.
 */
export function createBareRepo(root: string, name: string, spec: { head?: string; files: Files; branches?: Record<string, Files> }): string {
  const head = spec.head ?? "main";
  const work = mkdtempSync(path.join(os.tmpdir(), "parley-git-work-"));
  try {
    git(work, "init", "-q", "-b", head);
    writeFiles(work, spec.files);
    git(work, "add", "-A");
    git(work, "commit", "-q", "--allow-empty", "-m", `Initial ${name}`);
    for (const [branch, files] of Object.entries(spec.branches ?? {})) {
      git(work, "checkout", "-q", "-b", branch, head);
      writeFiles(work, files);
      git(work, "add", "-A");
      git(work, "commit", "-q", "--allow-empty", "-m", `On ${branch}`);
    }
    git(work, "checkout", "-q", head);
    const bare = path.join(root, `${name}.git`);
    git(root, "clone", "-q", "--bare", work, bare);
    return bare;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Commits `files` onto `branch` of a bare repository (made from `from` when new), as a push would. */
export function commitToBare(bare: string, branch: string, files: Files, from = "HEAD"): string {
  const work = mkdtempSync(path.join(os.tmpdir(), "parley-git-work-"));
  try {
    git(work, "clone", "-q", bare, "w");
    const clone = path.join(work, "w");
    const exists = git(bare, "for-each-ref", "--format=%(refname)", `refs/heads/${branch}`).trim() !== "";
    git(clone, "checkout", "-q", "-B", branch, exists ? `origin/${branch}` : from === "HEAD" ? "HEAD" : `origin/${from}`);
    writeFiles(clone, files);
    git(clone, "add", "-A");
    git(clone, "commit", "-q", "-m", `Update ${branch}`);
    git(clone, "push", "-q", "origin", `HEAD:refs/heads/${branch}`);
    return git(clone, "rev-parse", "HEAD").trim();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
