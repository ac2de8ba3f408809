import { type EventSourceMessage, createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROVIDER_LIMITS } from "../limits";
import { mergeDeltas } from "./merge-deltas";
import { type SseBlock, SseBlockReader, SseDataReader } from "./sse-reader";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

/** `text` as reads cut at the given byte offsets (a cut may fall inside a character). */
function cut(text: string, at: number[]): Uint8Array[] {
  const all = bytes(text);
  const reads: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, all.length]) {
    reads.push(all.slice(from, to));
    from = to;
  }
  return reads;
}

/** The data of every event of `reads`, read by an SseDataReader. */
function dataOf(reads: Uint8Array[], limits = DEFAULT_PROVIDER_LIMITS): string[] {
  const reader = new SseDataReader(limits);
  const out: string[] = [];
  for (const read of reads) {
    reader.read(read);
    out.push(...reader.take());
  }
  reader.end();
  return [...out, ...reader.take()];
}

type Whole = { whole: string };

/** The blocks of `reads` read by an SseBlockReader (a "whole" read as its text), how many each read gave (-1: whole), and the rest at the end. */
function blocksOf(reads: Uint8Array[], limits = DEFAULT_PROVIDER_LIMITS): { blocks: (SseBlock | Whole)[]; perRead: number[]; rest: string } {
  const reader = new SseBlockReader(limits);
  const blocks: (SseBlock | Whole)[] = [];
  const perRead: number[] = [];
  for (const read of reads) {
    const got = reader.read(read);
    if (got === "whole") blocks.push({ whole: new TextDecoder().decode(read) });
    else blocks.push(...got);
    perRead.push(got === "whole" ? -1 : got.length);
  }
  return { blocks, perRead, rest: reader.end() };
}

/** What eventsource-parser makes of the whole text in one go. */
function parsedWhole(text: string): EventSourceMessage[] {
  const out: EventSourceMessage[] = [];
  createParser({ onEvent: (event) => out.push(event) }).feed(text);
  return out;
}

describe("SseDataReader (the compatible provider's reads)", () => {
  it("gives each event's data once it is complete, whatever the reads' cuts (inside a line, a line end or a character)", () => {
    const text = 'data: {"a":"é✓"}\n\ndata: second\n\n: a comment\ndata: third\n\n';
    const whole = dataOf([bytes(text)]);
    expect(whole).toEqual(['{"a":"é✓"}', "second", "third"]);
    const all = bytes(text).length;
    for (let at = 1; at < all; at++) expect(dataOf(cut(text, [at]))).toEqual(whole);
    expect(dataOf(cut(text, [3, 9, 12, 17, 18, 30]))).toEqual(whole);
  });

  it("reads CRLF and CR line ends, joins several data lines with a newline, skips comments and events without data", () => {
    expect(dataOf([bytes("data: a\r\n\r\ndata: b\r\rdata: c\r\ndata: d\r\n\r\n")])).toEqual(["a", "b", "c\nd"]);
    expect(dataOf(cut("data: a\r\n\r\ndata: b\r\n\r\n", [8, 9, 10]))).toEqual(["a", "b"]);
    expect(dataOf([bytes(": keepalive\n\nid: 1\n\nretry: 5\n\nevent: x\ndata: y\n\n")])).toEqual(["y"]);
  });

  it("drops an unfinished event at the end, as the SDK does", () => {
    expect(dataOf([bytes("data: a\n\ndata: unfinished")])).toEqual(["a"]);
  });

  it("fails at an unfinished line or event over maxEventChars, and at maxAnswerBytes", () => {
    const limits = { ...DEFAULT_PROVIDER_LIMITS, maxEventChars: 100, maxAnswerBytes: 1000 };
    expect(() => dataOf([bytes("data: "), bytes("x".repeat(200))], limits)).toThrow(expect.objectContaining({ name: "ProviderLimitError", refusal: "maxEventChars" }));
    expect(() => dataOf([bytes(`data: ${"x".repeat(50)}\n`), bytes(`data: ${"x".repeat(60)}\n`)], limits)).toThrow(expect.objectContaining({ refusal: "maxEventChars" }));
    expect(dataOf([bytes(`data: ${"x".repeat(90)}\n\n`), bytes(`data: ${"y".repeat(90)}\n\n`)], limits)).toHaveLength(2);
    const reader = new SseDataReader(limits);
    for (let i = 0; i < 100; i++) reader.read(bytes("data: 12\n\n"));
    expect(reader.bytes).toBe(1000);
    expect(() => reader.read(bytes("\n"))).toThrow(expect.objectContaining({ refusal: "maxAnswerBytes", message: expect.stringContaining("(provider.maxAnswerBytes: 1000)") }));
  });
});

describe("SseBlockReader (the openai provider's reads, for merging)", () => {
  it("gives each event with its exact text (and the blank line ending it), holding an unfinished one", () => {
    const { blocks, perRead, rest } = blocksOf([bytes("data: a\n\ndata: b\n\ndata: c"), bytes("\n\n"), bytes("data: tail")]);
    expect(blocks).toEqual([
      { text: "data: a\n\n", message: { data: "a" }, plain: true },
      { text: "data: b\n\n", message: { data: "b" }, plain: true },
      { text: "data: c\n\n", message: { data: "c" }, plain: true },
    ]);
    expect(perRead).toEqual([2, 1, 0]);
    expect(rest).toBe("data: tail");
  });

  it("keeps CRLF and CR line ends as they came, a CR at the end of a read waiting for a possible LF", () => {
    const text = "event: x\r\ndata: a\r\n\r\ndata: b\r\rdata: c\r";
    const { blocks, perRead, rest } = blocksOf([...cut(text, [text.length - 9]), bytes("\n\r\n")]);
    expect(blocks.map((b) => ("whole" in b ? b : b.text))).toEqual(["event: x\r\ndata: a\r\n\r\n", "data: b\r\r", "data: c\r\n\r\n"]);
    expect(blocks.map((b) => ("whole" in b ? b : b.message))).toEqual([{ event: "x", data: "a" }, { data: "b" }, { data: "c" }]);
    // Each read ends in a CR that may begin a CRLF: its line is finished by the next read.
    expect(perRead).toEqual([1, 1, 1]);
    expect(rest).toBe("");
  });

  it("marks an event plain only when it has one data line and no id, retry, comment or unknown field", () => {
    const text = ["event: e\ndata: 1", "id: 7\ndata: 2", ": note\ndata: 3", "retry: 9\ndata: 4", "foo: bar\ndata: 5", "data: 6\ndata: 7", ": only a comment"].join("\n\n");
    const { blocks } = blocksOf([bytes(`${text}\n\n`)]);
    expect(blocks.map((b) => ("whole" in b ? b : [b.message?.data, b.plain]))).toEqual([
      ["1", true],
      ["2", false],
      ["3", false],
      ["4", false],
      ["5", false],
      ["6\n7", false],
      [undefined, false],
    ]);
  });

  it('reads one whole event between two events as "whole", without decoding it; not when part of an event is held', () => {
    const reader = new SseBlockReader(DEFAULT_PROVIDER_LIMITS);
    expect(reader.read(bytes("data: a\n\n"))).toBe("whole");
    expect(reader.read(bytes("data: b"))).toEqual([]);
    expect(reader.between).toBe(false);
    expect(reader.read(bytes("\n\n"))).toEqual([{ text: "data: b\n\n", message: { data: "b" }, plain: true }]);
    expect(reader.between).toBe(true);
    expect(reader.read(bytes("data: c\r\n\r\n"))).not.toBe("whole");
    expect(reader.read(bytes("data: d\n\ndata: e\n\n"))).toHaveLength(2);
  });

  it("is not between two events while the decoder holds part of a character, so such a read is not taken as whole", () => {
    const e = bytes("é");
    const reader = new SseBlockReader(DEFAULT_PROVIDER_LIMITS);
    expect(reader.read(new Uint8Array([...bytes("data: a\n\n"), e[0] ?? 0]))).toEqual([{ text: "data: a\n\n", message: { data: "a" }, plain: true }]);
    expect(reader.between).toBe(false);
    expect(reader.read(new Uint8Array([e[1] ?? 0, ...bytes(": x\n\n")]))).toEqual([{ text: "é: x\n\n", plain: false }]);
    expect(reader.between).toBe(true);
  });

  it("loses no character and makes the events eventsource-parser makes of the whole text, whatever the cuts", () => {
    const text = 'data: {"t":"é✓"}\n\n: c\r\nid: 1\r\ndata: x\r\n\r\nevent: e\rdata: y\r\rdata: z\ndata: w\n\n\n\ndata: last\n\ndata: unfinished';
    const expected = parsedWhole(text);
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const size = bytes(text).length;
    for (let round = 0; round < 300; round++) {
      const at = [...new Set(Array.from({ length: 1 + Math.floor(random() * 6) }, () => 1 + Math.floor(random() * (size - 1))))].sort((a, b) => a - b);
      const { blocks, rest } = blocksOf(cut(text, at));
      expect(blocks.map((b) => ("whole" in b ? b.whole : b.text)).join("") + rest).toBe(text);
      expect(blocks.flatMap((b) => ("whole" in b ? parsedWhole(b.whole) : b.message ? [b.message] : []))).toEqual(expected);
    }
  });

  it("fails when what it holds of an unfinished event outgrows maxEventChars, comments included, and at maxAnswerBytes", () => {
    const limits = { ...DEFAULT_PROVIDER_LIMITS, maxEventChars: 100, maxAnswerBytes: 1000 };
    expect(() => blocksOf([bytes("data: "), bytes("x".repeat(200))], limits)).toThrow(expect.objectContaining({ name: "ProviderLimitError", refusal: "maxEventChars" }));
    expect(() => blocksOf(Array.from({ length: 20 }, () => bytes(": keep\n")), limits)).toThrow(expect.objectContaining({ refusal: "maxEventChars" }));
    // Whole events never held are not refused for their length (they pass on as they came).
    expect(blocksOf(Array.from({ length: 20 }, () => bytes(": keep\n\n")), limits).blocks).toHaveLength(20);
    expect(() => blocksOf(Array.from({ length: 101 }, () => bytes("data: 12\n\n")), limits)).toThrow(expect.objectContaining({ refusal: "maxAnswerBytes" }));
  });
});

describe("mergeDeltas on the shared reader", () => {
  const chat = (content: string) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}`;
  const finish = `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}`;

  async function through(reads: Uint8Array[]): Promise<Uint8Array[]> {
    const stream = mergeDeltas(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const read of reads) controller.enqueue(read);
          controller.close();
        },
      }),
    );
    const out: Uint8Array[] = [];
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value);
    return out;
  }
  const texts = (out: Uint8Array[]) => out.map((part) => new TextDecoder().decode(part));

  it("passes a read of several events that merge nothing on as the same bytes", async () => {
    const read = bytes(`${chat("a")}\n\n${finish}\n\ndata: [DONE]\n\n`);
    const out = await through([read]);
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(read);
  });

  it("keeps a comment between text deltas as it came, ending the run; CRLF events around a merge keep their line ends", async () => {
    const out = texts(await through([bytes(`${chat("a")}\n\n: keepalive\n\n${chat("b")}\r\n\r\n${chat("c")}\r\n\r\n${finish}\r\n\r\n`)]));
    expect(out).toHaveLength(1);
    const [first, comment, merged, last] = out[0]?.split(/(?<=\n\n)/) ?? [];
    expect(first).toBe(`${chat("a")}\n\n`);
    expect(comment).toBe(": keepalive\n\n");
    expect(merged).toMatch(/^data: .*"content":"bc"/);
    expect(last).toBe(`${finish}\r\n\r\n`);
  });
});
