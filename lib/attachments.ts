/**
 * What may be attached to a message, shared by the composer (which reads the files) and the
 * server (whose prompt input caps a file's data URL at 10,000,000 characters): text files
 * and PNG, JPEG, GIF or WebP images, within a size each. A text file reaches the model as
 * text, an image as an image (server/session/model-messages.ts).
 */

/** Images: about 6.7 MB as base64, well under the server's cap on a file's URL. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Text files (and mentioned project files): about 64,000 tokens, a good part of a context window. */
export const MAX_TEXT_BYTES = 256 * 1024;
/** Files one message may carry. */
export const MAX_ATTACHMENTS = 10;

export const IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

export interface Attachment {
  /** Unique within the composer (to remove one chip). */
  id: string;
  name: string;
  kind: "text" | "image";
  mime: string;
  size: number;
  /** `data:<mime>;base64,…` — what the prompt's file part carries. */
  url: string;
}

export type Classified = { kind: "text" | "image"; mime: string } | { kind: "unsupported"; reason: string };

/** "12.3 MB", "340 KB", "12 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`;
  if (bytes >= 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${bytes} byte${bytes === 1 ? "" : "s"}`;
}

/**
 * Whether the bytes read as UTF-8 text: no NUL byte, no invalid sequence. `partial`: the
 * bytes are the start of a file, which may end inside a character.
 */
export function isText(bytes: Uint8Array, partial = false): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: partial });
    return true;
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
}

/**
 * What a file is, from its declared type and its bytes: an image of a supported type, text
 * (whatever its declared type says — browsers call a .ts file "video/mp2t" and most source
 * files "") sent as `text/…`, or unsupported with the reason.
 */
export function classify(file: { name: string; type: string }, bytes: Uint8Array, partial = false): Classified {
  if (IMAGE_TYPES.includes(file.type)) return { kind: "image", mime: file.type };
  if (file.type.startsWith("image/")) return { kind: "unsupported", reason: `${file.name} is a ${file.type.slice(6).toUpperCase()} image: attach PNG, JPEG, GIF or WebP images` };
  if (isText(bytes, partial)) return { kind: "text", mime: file.type.startsWith("text/") ? file.type : "text/plain" };
  return { kind: "unsupported", reason: `${file.name} cannot be attached: only text files and PNG, JPEG, GIF or WebP images can` };
}

const maxBytes = (kind: "text" | "image") => (kind === "image" ? MAX_IMAGE_BYTES : MAX_TEXT_BYTES);

function sizeReason(name: string, kind: "text" | "image", size: number): string {
  return `${name} is ${formatBytes(size)}: ${kind === "image" ? "images" : "text files"} can be attached up to ${formatBytes(maxBytes(kind))}`;
}

/** Why a file of `size` bytes is too large for its kind, or undefined when it fits. */
export function tooLarge(name: string, kind: "text" | "image", size: number): string | undefined {
  return size <= maxBytes(kind) ? undefined : sizeReason(name, kind, size);
}

/** Base64 of the bytes, in chunks (String.fromCharCode takes a bounded number of arguments). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

let counter = 0;

/**
 * Read a file the user picked, pasted or dropped into an attachment, or say why it cannot
 * be one. A file over the limits is refused after reading at most its first 4 KB.
 */
export async function readAttachment(file: File): Promise<{ ok: true; attachment: Attachment } | { ok: false; reason: string }> {
  // The declared type settles images without reading them; anything else needs a look at its bytes.
  if (IMAGE_TYPES.includes(file.type)) {
    if (file.size > MAX_IMAGE_BYTES) return { ok: false, reason: sizeReason(file.name, "image", file.size) };
  } else if (file.size > MAX_TEXT_BYTES) {
    const kind = classify(file, new Uint8Array(await file.slice(0, 4096).arrayBuffer()), true);
    return { ok: false, reason: kind.kind === "unsupported" ? kind.reason : sizeReason(file.name, "text", file.size) };
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const kind = classify(file, bytes);
  if (kind.kind === "unsupported") return { ok: false, reason: kind.reason };
  const name = file.name || (kind.kind === "image" ? `image.${kind.mime.slice(6)}` : "pasted.txt");
  return {
    ok: true,
    attachment: { id: `att-${++counter}`, name, kind: kind.kind, mime: kind.mime, size: bytes.length, url: `data:${kind.mime};base64,${toBase64(bytes)}` },
  };
}
