/**
 * What a team secret may be called and hold (SPEC §16), shared by the server's checks
 * (server/secrets/secrets.ts) and the Team page's form.
 */

export const SECRET_KINDS = ["git-token", "git-password", "ssh-key", "provider-key", "header", "oauth"] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export const SECRET_KIND_LABELS: Record<SecretKind, string> = {
  "git-token": "Git token",
  "git-password": "Git password",
  "ssh-key": "SSH private key",
  "provider-key": "Provider API key",
  header: "HTTP header value",
  oauth: "Tool server OAuth tokens",
};

/** 1–64 characters: lower-case letters, digits, '.', '_' or '-', starting with a letter or digit. */
export const SECRET_NAME_PATTERN = "[a-z0-9][a-z0-9._\\-]{0,63}";
export const SECRET_NAME_RULE = "1–64 characters: lower-case letters, digits, '.', '_' or '-', starting with a letter or digit";

/** The most a value may hold (UTF-8 bytes). */
export const MAX_SECRET_VALUE_BYTES = 16 * 1024;
