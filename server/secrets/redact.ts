/**
 * Hiding secret values in text the server passes on (a git error, a provider's message):
 * every occurrence of a value becomes `[secret]`, and so do the forms it takes on the
 * way — URL-encoded (a credential in a URL), JSON-escaped, and base64 as in an HTTP basic
 * `Authorization` header, where the value follows a user name of any length. Plain string
 * search only: no value is ever compiled into a pattern.
 */

export const REDACTED = "[secret]";
const BASE64_CHAR = /[A-Za-z0-9+/=]/;
/** Lines of a multi-line value (a private key) this long are hidden on their own too. */
const MIN_LINE = 16;
/** A base64 run is hidden when it holds this many characters that only the value decides. */
const MIN_BASE64_CORE = 8;

export type Redact = (text: string) => string;

export function redactor(values: readonly string[]): Redact {
  const literals = new Set<string>();
  const cores = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    for (const form of literalForms(value)) if (form) literals.add(form);
    for (const core of base64Cores(value)) cores.add(core);
  }
  const ordered = [...literals].sort((a, b) => b.length - a.length);
  return (text) => {
    // Base64 runs first: a whole basic-auth credential goes, not just the value's part of it.
    let out = text;
    for (const core of cores) out = hideBase64Runs(out, core);
    for (const literal of ordered) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    return out;
  };
}

function literalForms(value: string): string[] {
  const forms = [value, encodeURIComponent(value), encodeURI(value), JSON.stringify(value).slice(1, -1)];
  // Percent-encoding with lower-case hex digits is as valid as upper-case.
  forms.push(...forms.slice(1, 3).map((encoded) => encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())));
  forms.push(encodeURIComponent(value).replace(/%20/g, "+"));
  forms.push(Buffer.from(value, "utf8").toString("base64"), Buffer.from(value, "utf8").toString("base64url"));
  if (value.includes("\n")) forms.push(...value.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.length >= MIN_LINE));
  return forms;
}

/**
 * The base64 characters a value produces wherever it sits in the encoded bytes: one per
 * alignment (its offset modulo 3), without the edge characters that the bytes around it
 * share. A basic-auth header's `user:value` contains one of them.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const cores: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const rest = bytes.length - skip;
    if (rest < 3) continue;
    const core = bytes.subarray(skip, skip + rest - (rest % 3)).toString("base64");
    if (core.length >= MIN_BASE64_CORE) cores.push(core);
  }
  return cores;
}

/** Replaces each whole run of base64 characters that contains `core`. */
function hideBase64Runs(text: string, core: string): string {
  let out = text;
  let from = 0;
  for (;;) {
    const at = out.indexOf(core, from);
    if (at < 0) return out;
    let start = at;
    while (start > 0 && BASE64_CHAR.test(out.charAt(start - 1))) start--;
    let end = at + core.length;
    while (end < out.length && BASE64_CHAR.test(out.charAt(end))) end++;
    out = out.slice(0, start) + REDACTED + out.slice(end);
    from = start + REDACTED.length;
  }
}
