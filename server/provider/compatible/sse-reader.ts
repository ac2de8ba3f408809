import { type EventSourceMessage, type EventSourceParser, type ParseError, createParser } from "eventsource-parser";
import { type ProviderLimits, ProviderLimitError } from "../limits";

/**
 * THE SSE READER of both providers' streamed answers, on `eventsource-parser` (the parser the
 * AI SDK reads with): the bytes of an answer, a read at a time, counted, decoded and parsed
 * into its events, within the answer's limits (limits.ts). Over `maxAnswerBytes`, or with an
 * unfinished event (or line) longer than `maxEventChars`, a read throws a `ProviderLimitError`.
 *
 * It reads in one of two ways:
 * - `SseDataReader` (the `compatible` provider, chat-stream.ts; the hot path): the data of
 *   each event, the whole read parsed in one go, nothing else kept.
 * - `SseBlockReader` (the `openai` provider's `fetch`, merge-deltas.ts): each event with its
 *   exact text, so that an event can be passed on as it came. The parser is given the read a
 *   line at a time (each line ending in "\n") so that the text of each event, up to and with
 *   the blank line that ends it, is known; the parser says what the event is.
 */

/** An answer's bytes so far, failing once more than `maxAnswerBytes` came. */
class AnswerBytes {
  count = 0;
  constructor(private readonly limit: number) {}

  add(bytes: Uint8Array): void {
    this.count += bytes.length;
    if (this.count > this.limit) throw answerTooLong(this.limit);
  }
}

function answerTooLong(limit: number): ProviderLimitError {
  return ProviderLimitError.over("maxAnswerBytes", `sent more than ${limit} bytes`, limit);
}

function eventTooLong(limits: ProviderLimits): ProviderLimitError {
  return ProviderLimitError.over("maxEventChars", `sent an event or line longer than ${limits.maxEventChars} characters`, limits.maxEventChars);
}

/** The data of each event of an answer, a read at a time (`take` after each). `[DONE]` is data like any other. */
export class SseDataReader {
  private readonly decoder = new TextDecoder();
  private readonly parser: EventSourceParser;
  private events: string[] = [];
  /** An event (or line) outgrew the parser's buffer. */
  private overflow = false;
  /** The bytes read so far. */
  bytes = 0;

  constructor(private readonly limits: ProviderLimits) {
    this.parser = createParser({
      onEvent: (event) => this.events.push(event.data),
      maxBufferSize: limits.maxEventChars,
      onError: (error) => {
        // Other parse errors (an unknown field, a bad retry) are ignored, as by the SDK.
        if (error.type === "max-buffer-size-exceeded") this.overflow = true;
      },
    });
  }

  /** One read of the answer. */
  read(bytes: Uint8Array): void {
    // Counted here, not by an `AnswerBytes`: this is the hot path of every compatible answer.
    this.bytes += bytes.length;
    if (this.bytes > this.limits.maxAnswerBytes) throw answerTooLong(this.limits.maxAnswerBytes);
    this.parser.feed(this.decoder.decode(bytes, { stream: true }));
    if (this.overflow) throw eventTooLong(this.limits);
  }

  /** The end of the answer (an unfinished event is dropped, as by the SDK). */
  end(): void {
    this.parser.feed(this.decoder.decode());
  }

  /** The data of the events completed since the last `take`, in order. */
  take(): string[] {
    const events = this.events;
    if (events.length > 0) this.events = [];
    return events;
  }
}

/** One event of an answer as it came. */
export interface SseBlock {
  /** Its text exactly as it came, with the blank line that ends it. */
  text: string;
  /** The event it makes; none for a block that has no data (comments only, a retry). */
  message?: EventSourceMessage;
  /** Its lines are one `data:` line and at most `event:` lines: no id, retry, comment, unknown field or second data line. */
  plain: boolean;
}

const LF = 10;
const CR = 13;

/** Whether `bytes` are one whole event that ends in "\n\n" and holds no other blank line and no CR. */
function oneWholeEvent(bytes: Uint8Array): boolean {
  const n = bytes.length;
  if (n < 2 || bytes[n - 1] !== LF || bytes[n - 2] !== LF) return false;
  for (let i = 0; i < n - 2; i++) {
    const byte = bytes[i];
    if (byte === CR || (byte === LF && bytes[i + 1] === LF)) return false;
  }
  return true;
}

/** The events of an answer with their exact text, a read at a time (see above). */
export class SseBlockReader {
  // A byte order mark is kept, so that the text stays as it came (the SDK's decoder removes it).
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  private readonly parser: EventSourceParser;
  private readonly answer: AnswerBytes;
  /** The unfinished event's text: complete lines (given to the parser already), then an unfinished line. */
  private held = "";
  /** How much of `held` the parser has been given. */
  private given = 0;
  /** What the parser said of the current event. */
  private message: EventSourceMessage | undefined;
  private extra = false;
  /** The last read ended inside a character: the decoder holds part of it. */
  private partial = false;

  constructor(private readonly limits: ProviderLimits) {
    this.answer = new AnswerBytes(limits.maxAnswerBytes);
    const other = () => {
      this.extra = true;
    };
    this.parser = createParser({
      onEvent: (event) => {
        this.message = event;
      },
      onComment: other,
      onRetry: other,
      onError: (_error: ParseError) => other(),
    });
  }

  /** Whether nothing of an unfinished event is held, not even a byte (the reader is between two events). */
  get between(): boolean {
    return this.held === "" && !this.partial;
  }

  /**
   * One read of the answer: the events it completed, or `"whole"` when, between two events,
   * the read is exactly one whole event (not decoded: it can go on as it came).
   */
  read(bytes: Uint8Array): SseBlock[] | "whole" {
    this.answer.add(bytes);
    if (this.between && bytes.length <= this.limits.maxEventChars && oneWholeEvent(bytes)) return "whole";
    // A last byte that is not ASCII may be part of a character the next read finishes.
    this.partial = bytes.length > 0 && (bytes[bytes.length - 1] ?? 0) >= 0x80;
    return this.readText(this.decoder.decode(bytes, { stream: true }));
  }

  /** The events `text` (the answer's next characters) completed. */
  readText(text: string): SseBlock[] {
    const blocks = this.split(this.held + text);
    if (this.held.length > this.limits.maxEventChars) throw eventTooLong(this.limits);
    return blocks;
  }

  /** The end of the answer: the text of an unfinished event (and of an unfinished character), as it came. */
  end(): string {
    const rest = this.held + this.decoder.decode();
    this.held = "";
    this.given = 0;
    this.partial = false;
    return rest;
  }

  /** The events `text` completes (it begins with what is held); the rest is held. */
  private split(text: string): SseBlock[] {
    const blocks: SseBlock[] = [];
    const lines = new Lines(text, this.given);
    let start = 0;
    for (let at = this.given, end = lines.next(); end >= 0; at = lines.at, end = lines.next()) {
      // The parser gets each line ending in "\n" (a CR or CRLF line end as "\n"): it handles a line as soon as it has it.
      this.parser.feed(lines.at - end === 1 && text.charCodeAt(end) === LF ? text.slice(at, lines.at) : `${text.slice(at, end)}\n`);
      if (end === at) {
        blocks.push(this.block(text.slice(start, lines.at)));
        start = lines.at;
      }
    }
    this.held = text.slice(start);
    this.given = lines.at - start;
    return blocks;
  }

  private block(text: string): SseBlock {
    const message = this.message;
    const plain = message !== undefined && !this.extra && message.id === undefined && !message.data.includes("\n");
    this.message = undefined;
    this.extra = false;
    return message ? { text, message, plain } : { text, plain };
  }
}

/** The lines of a text, one after another from `at`: CRLF, LF or CR ends a line. */
class Lines {
  /** Where the next line begins. */
  at: number;
  /** The next CR at or after `at` (-1: none), found once, not at each line. */
  private cr: number;

  constructor(
    private readonly text: string,
    at: number,
  ) {
    this.at = at;
    this.cr = text.indexOf("\r", at);
  }

  /** Where the line at `at` ends (its content; `at` moves past its line end); -1 when it is not finished (a CR at the end of the text may be the first half of a CRLF). */
  next(): number {
    const { text, at } = this;
    if (this.cr >= 0 && this.cr < at) this.cr = text.indexOf("\r", at);
    const lf = text.indexOf("\n", at);
    const cr = this.cr;
    if (cr < 0 || (lf >= 0 && lf < cr)) {
      if (lf < 0) return -1;
      this.at = lf + 1;
      return lf;
    }
    if (cr === text.length - 1) return -1;
    this.at = text.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
    return cr;
  }
}
