import path from "node:path";
import { ParleyError } from "../errors";

/**
 * A git remote an admin may clone from, checked before git sees it: `https://` (or
 * `http://` when the operator allows it), `ssh://` or scp-style `user@host:path`, `git://`,
 * and `file://` or an absolute path only when the operator allows local remotes. Never a
 * credential in it (a team secret carries those), never a transport helper (`ext::…`).
 */

export type Transport = "https" | "http" | "ssh" | "git" | "file";

export interface Remote {
  /** The URL as git gets it (credential-free). */
  url: string;
  transport: Transport;
  /** A name for the new folder (the repository's last path segment, without `.git`). */
  name: string;
}

export interface RemotePolicy {
  /** file:// URLs and absolute paths. */
  allowLocalRemotes: boolean;
  /** http:// (credentials would travel in clear). */
  allowHttp: boolean;
}

const invalid = (message: string) => ParleyError.invalid(message);

function folderName(pathname: string): string {
  const last = pathname.replace(/\/+$/, "").split("/").pop() ?? "";
  return last.replace(/\.git$/, "") || "repository";
}

export function parseRemote(input: string, policy: RemotePolicy): Remote {
  const text = input.trim();
  // Control characters (a newline would start a new credential-helper line) and spaces around it.
  if (/[\x00-\x1f\x7f]/.test(text)) throw invalid("A repository URL cannot contain control characters.");
  if (text.startsWith("-")) throw invalid("A repository URL cannot start with '-'.");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined && /^[a-zA-Z][a-zA-Z0-9+.-]*::/.test(text)) {
    throw invalid("Transport helpers (such as ext::) are not allowed: use an https:// or ssh:// URL.");
  }
  if (scheme !== undefined) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalid(`${text} is not a valid URL.`);
    }
    if (scheme === "file") {
      if (!policy.allowLocalRemotes) throw invalid("Cloning from a file:// URL is not allowed on this server (the operator's git.allowLocalRemotes setting).");
      if (url.host !== "") throw invalid("A file:// URL names a path on this server (file:///path).");
      return { url: text, transport: "file", name: folderName(url.pathname) };
    }
    if (scheme !== "https" && scheme !== "http" && scheme !== "ssh" && scheme !== "git") {
      throw invalid(`The ${scheme}:// protocol is not allowed: use https://, ssh:// or git@host:path.`);
    }
    if (scheme === "http" && !policy.allowHttp) {
      throw invalid("http:// is not allowed on this server (credentials would travel unencrypted): use https:// (or the operator's git.allowHttp setting).");
    }
    if (url.password !== "" || ((scheme === "https" || scheme === "http") && url.username !== "")) {
      throw invalid("The URL holds credentials. Put the token or password in a team secret and choose it as the project's credential; give the URL without them.");
    }
    if (url.hostname === "" || url.hostname.startsWith("-")) throw invalid(`${text} has no valid host.`);
    return { url: text, transport: scheme, name: folderName(url.pathname) };
  }
  // scp-style: [user@]host:path, with no slash before the colon (git's own rule).
  const scp = /^(?:([^@/:]+)@)?([^@/:]+):(.+)$/.exec(text);
  if (scp) {
    const [, user, host] = scp;
    if (user !== undefined && user.includes(":")) throw invalid("The URL holds credentials: put the deploy key in a team secret.");
    if (host!.startsWith("-")) throw invalid(`${text} has no valid host.`);
    return { url: text, transport: "ssh", name: folderName(scp[3]!) };
  }
  if (!policy.allowLocalRemotes) throw invalid("Cloning from a path on this server is not allowed (the operator's git.allowLocalRemotes setting); give an https:// or ssh:// URL.");
  if (!path.isAbsolute(text)) throw invalid("A local repository is given by its absolute path (or a file:// URL).");
  return { url: text, transport: "file", name: folderName(text) };
}

/** The protocols git may use for a remote (GIT_ALLOW_PROTOCOL): never ext, fd or other helpers. */
export function allowedProtocols(policy: RemotePolicy): string {
  return ["https", "ssh", "git", ...(policy.allowHttp ? ["http"] : []), ...(policy.allowLocalRemotes ? ["file"] : [])].join(":");
}
