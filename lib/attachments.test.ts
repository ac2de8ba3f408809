import { describe, expect, it } from "vitest";
import { MAX_IMAGE_BYTES, MAX_TEXT_BYTES, classify, formatBytes, isText, readAttachment, toBase64 } from "./attachments";

const bytes = (text: string) => new TextEncoder().encode(text);
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe("attachments", () => {
  it("takes any UTF-8 file as text, whatever type the browser declares, and refuses binary data", () => {
    expect(classify({ name: "greet.ts", type: "video/mp2t" }, bytes("export {};\n"))).toEqual({ kind: "text", mime: "text/plain" });
    expect(classify({ name: "notes.md", type: "text/markdown" }, bytes("# hi"))).toEqual({ kind: "text", mime: "text/markdown" });
    expect(classify({ name: "Makefile", type: "" }, bytes("all:\n\ttrue\n"))).toEqual({ kind: "text", mime: "text/plain" });
    expect(classify({ name: "a.zip", type: "application/zip" }, new Uint8Array([0x50, 0x4b, 3, 4, 0]))).toEqual({
      kind: "unsupported",
      reason: "a.zip cannot be attached: only text files and PNG, JPEG, GIF or WebP images can",
    });
    expect(isText(new Uint8Array([0xc3, 0x28]))).toBe(false);
    // The start of a file may end inside a character.
    expect(isText(bytes("é").subarray(0, 1), true)).toBe(true);
    expect(isText(bytes("é").subarray(0, 1), false)).toBe(false);
  });

  it("takes PNG, JPEG, GIF and WebP images and refuses other image types with a clear reason", () => {
    expect(classify({ name: "shot.png", type: "image/png" }, PNG)).toEqual({ kind: "image", mime: "image/png" });
    expect(classify({ name: "pic.heic", type: "image/heic" }, PNG)).toEqual({ kind: "unsupported", reason: "pic.heic is a HEIC image: attach PNG, JPEG, GIF or WebP images" });
  });

  it("reads a file into a data URL the prompt carries", async () => {
    const text = await readAttachment(new File(["hello\n"], "notes.txt", { type: "text/plain" }));
    expect(text).toEqual({ ok: true, attachment: expect.objectContaining({ name: "notes.txt", kind: "text", mime: "text/plain", size: 6, url: "data:text/plain;base64,aGVsbG8K" }) });
    const image = await readAttachment(new File([PNG], "image.png", { type: "image/png" }));
    expect(image).toEqual({ ok: true, attachment: expect.objectContaining({ kind: "image", mime: "image/png", url: `data:image/png;base64,${toBase64(PNG)}` }) });
  });

  it("refuses files over the limits, saying how large they are and what fits", async () => {
    const bigText = await readAttachment(new File(["x".repeat(MAX_TEXT_BYTES + 1)], "big.log", { type: "text/plain" }));
    expect(bigText).toEqual({ ok: false, reason: "big.log is 257 KB: text files can be attached up to 256 KB" });
    const bigImage = await readAttachment(new File([new Uint8Array(MAX_IMAGE_BYTES + 1)], "huge.png", { type: "image/png" }));
    expect(bigImage).toEqual({ ok: false, reason: "huge.png is 5 MB: images can be attached up to 5 MB" });
    const bigBinary = await readAttachment(new File([new Uint8Array(MAX_TEXT_BYTES + 1)], "disk.img", { type: "" }));
    expect(bigBinary).toEqual({ ok: false, reason: "disk.img cannot be attached: only text files and PNG, JPEG, GIF or WebP images can" });
  });

  it("encodes large files to base64 in chunks", () => {
    const data = new Uint8Array(100_000).map((_, i) => i % 251);
    expect(toBase64(data)).toBe(Buffer.from(data).toString("base64"));
    expect(formatBytes(12_900_000)).toBe("12.3 MB");
    expect(formatBytes(1)).toBe("1 byte");
  });
});
