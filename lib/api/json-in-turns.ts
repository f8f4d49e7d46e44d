/**
 * JSON text parsed a piece at a time, the event loop free between pieces: an import file of tens
 * of megabytes took a second of `JSON.parse` on the 2-core machine, every other request waiting.
 *
 * A value of at most PIECE_CHARS characters (each trace of an export file, typically) is one
 * `JSON.parse`. A larger object or array is taken apart: its members are found by a scan that
 * skips strings (`indexOf`) and counts brackets, each member parsed the same way (a large one
 * taken apart in turn, down to MAX_SPLIT_DEPTH levels), and the container built from them as
 * `JSON.parse` builds it (a repeated key keeps its first place and its last value; `__proto__` is
 * an own key). Between pieces, once a turn has run TURN_BUDGET_MS, it yields (`setImmediate`).
 *
 * The glue between members (`{`, `"key"`, `:`, `,`, `]`) is checked here and every member by
 * `JSON.parse`, so a text is accepted exactly when `JSON.parse` accepts it, with the same value.
 */

/** Values up to this many characters are parsed in one `JSON.parse` (about a millisecond). */
export const PIECE_CHARS = 256 * 1024;
/** Containers nested deeper than this are parsed whole, however large: nothing in an export file is. */
export const MAX_SPLIT_DEPTH = 16;
/** How long one turn of parsing runs before it yields to the event loop. */
export const TURN_BUDGET_MS = 8;
/** Characters a scan reads between looks at the clock. */
const SCAN_STRIDE = 64 * 1024;

/** The text is not JSON: `message` says where, as `JSON.parse` would. Recognise it with `isJsonSyntaxError`. */
export class JsonSyntaxError extends SyntaxError {
  readonly code = 'JSON_SYNTAX';

  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** Whether `error` is a JsonSyntaxError (by its code: the build may hold two copies of the class). */
export function isJsonSyntaxError(error: unknown): error is JsonSyntaxError {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'JSON_SYNTAX';
}

/** Yields to the event loop once a turn has run its budget: `await pacer.pace()` between pieces of work. */
export interface Pacer {
  pace(): Promise<void>;
}

/**
 * A pacer that lets a turn run `budgetMs`, then yields with `yieldTurn` (the next turn of the
 * event loop: `setImmediate`).
 */
export function createPacer(
  budgetMs = TURN_BUDGET_MS,
  yieldTurn: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
): Pacer {
  let started = performance.now();
  return {
    async pace() {
      if (performance.now() - started < budgetMs) return;
      await yieldTurn();
      started = performance.now();
    },
  };
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const BACKSLASH = 0x5c;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * Parses `text` as `JSON.parse` does, yielding to the event loop between pieces (see the file's
 * comment). Throws JsonSyntaxError when it is not JSON.
 * `pieceChars` (PIECE_CHARS unless a test makes pieces small) bounds what one `JSON.parse` takes.
 * @example const value = await parseJsonInTurns(body.toString('utf8'));
 */
export async function parseJsonInTurns(
  text: string,
  options: { pacer?: Pacer; pieceChars?: number } = {},
): Promise<unknown> {
  const parser = new TurnParser(text, options.pacer ?? createPacer(), options.pieceChars ?? PIECE_CHARS);
  const start = parser.skipSpace(0);
  if (start >= text.length) throw parser.endError();
  const { value, end } = await parser.valueAt(start, 0);
  const after = parser.skipSpace(end);
  if (after < text.length) throw parser.unexpected(after, 'after the value');
  return value;
}

class TurnParser {
  private scanned = 0;

  constructor(
    private readonly text: string,
    private readonly pacer: Pacer,
    private readonly pieceChars: number,
  ) {}

  skipSpace(from: number): number {
    let at = from;
    while (at < this.text.length && isSpace(this.text.charCodeAt(at))) at++;
    return at;
  }

  /** The value starting at `start` (not a space) and where it ends. */
  async valueAt(start: number, depth: number): Promise<{ value: unknown; end: number }> {
    const code = this.text.charCodeAt(start);
    const container = code === OPEN_OBJECT || code === OPEN_ARRAY;
    if (container && depth < MAX_SPLIT_DEPTH) {
      const end = await this.valueEnd(start, this.pieceChars);
      if (end !== -1) return { value: this.parsePiece(start, end), end };
      return code === OPEN_OBJECT ? this.objectAt(start, depth) : this.arrayAt(start, depth);
    }
    const end = await this.valueEnd(start, Number.POSITIVE_INFINITY);
    if (end === start) throw this.unexpected(start, 'where a value was expected');
    return { value: this.parsePiece(start, end), end };
  }

  private async arrayAt(start: number, depth: number): Promise<{ value: unknown[]; end: number }> {
    const items: unknown[] = [];
    let at = this.skipSpace(start + 1);
    if (this.text.charCodeAt(at) === CLOSE_ARRAY) return { value: items, end: at + 1 };
    for (;;) {
      if (at >= this.text.length) throw this.endError();
      const item = await this.valueAt(at, depth + 1);
      items.push(item.value);
      await this.pacer.pace();
      at = this.skipSpace(item.end);
      const code = this.text.charCodeAt(at);
      if (code === CLOSE_ARRAY) return { value: items, end: at + 1 };
      if (code !== COMMA) throw this.unexpected(at, "after array element (expected ',' or ']')");
      at = this.skipSpace(at + 1);
    }
  }

  private async objectAt(start: number, depth: number): Promise<{ value: Record<string, unknown>; end: number }> {
    const object: Record<string, unknown> = {};
    let at = this.skipSpace(start + 1);
    if (this.text.charCodeAt(at) === CLOSE_OBJECT) return { value: object, end: at + 1 };
    for (;;) {
      if (at >= this.text.length) throw this.endError();
      if (this.text.charCodeAt(at) !== QUOTE) throw this.unexpected(at, 'where a property name was expected');
      const keyEnd = await this.valueEnd(at, Number.POSITIVE_INFINITY);
      const key = this.parsePiece(at, keyEnd) as string;
      at = this.skipSpace(keyEnd);
      if (this.text.charCodeAt(at) !== COLON) throw this.unexpected(at, "after property name (expected ':')");
      at = this.skipSpace(at + 1);
      if (at >= this.text.length) throw this.endError();
      const member = await this.valueAt(at, depth + 1);
      // As JSON.parse defines it: an own property, even `__proto__`.
      if (key === '__proto__') {
        Object.defineProperty(object, key, {
          value: member.value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else object[key] = member.value;
      await this.pacer.pace();
      at = this.skipSpace(member.end);
      const code = this.text.charCodeAt(at);
      if (code === CLOSE_OBJECT) return { value: object, end: at + 1 };
      if (code !== COMMA) throw this.unexpected(at, "after property value (expected ',' or '}')");
      at = this.skipSpace(at + 1);
    }
  }

  /**
   * Where the value starting at `start` ends, read as far as brackets and strings go (`JSON.parse`
   * checks the rest); -1 when it runs past `limit` characters. A value that is not a string or a
   * container ends at the next `,`, `]`, `}` or space.
   */
  private async valueEnd(start: number, limit: number): Promise<number> {
    const text = this.text;
    const stop = Math.min(text.length, start + limit);
    let depth = 0;
    let at = start;
    while (at < stop) {
      if (this.scanned >= SCAN_STRIDE) {
        this.scanned = 0;
        await this.pacer.pace();
      }
      const code = text.charCodeAt(at);
      if (code === QUOTE) {
        const end = this.stringEnd(at);
        this.scanned += end - at;
        if (end === -1 || end > stop) return end === -1 && stop === text.length ? text.length : -1;
        at = end;
        if (depth === 0) return at;
        continue;
      }
      this.scanned++;
      if (code === OPEN_ARRAY || code === OPEN_OBJECT) depth++;
      else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        if (depth === 0) return at;
        depth--;
        if (depth === 0) return at + 1;
      } else if (depth === 0 && (code === COMMA || isSpace(code))) return at;
      at++;
    }
    return stop === text.length ? text.length : -1;
  }

  /** Just past the string whose opening quote is at `start`; -1 when it never closes. */
  private stringEnd(start: number): number {
    let at = start + 1;
    for (;;) {
      const quote = this.text.indexOf('"', at);
      if (quote === -1) return -1;
      let backslashes = 0;
      while (this.text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      at = quote + 1;
    }
  }

  /** `JSON.parse` of the text from `start` to `end`, its error placed in the whole text. */
  private parsePiece(start: number, end: number): unknown {
    try {
      return JSON.parse(this.text.slice(start, end));
    } catch (error) {
      const message = (error as Error).message;
      const at = /at position (\d+)/.exec(message);
      if (at) {
        const position = start + Number(at[1]);
        throw new JsonSyntaxError(
          `${message.replace(/ in JSON at position.*$/, '')} in JSON ${this.where(position)}`,
          position,
        );
      }
      if (end >= this.text.length && /end of JSON input/.test(message)) throw this.endError();
      throw new JsonSyntaxError(`${message} (the value starting ${this.where(start)})`, start);
    }
  }

  endError(): JsonSyntaxError {
    return new JsonSyntaxError('Unexpected end of JSON input', this.text.length);
  }

  unexpected(at: number, context: string): JsonSyntaxError {
    if (at >= this.text.length) return this.endError();
    const char = JSON.stringify(this.text[at]);
    return new JsonSyntaxError(`Unexpected character ${char} ${context} in JSON ${this.where(at)}`, at);
  }

  /** "at position N (line L column C)", as V8 says it. */
  private where(position: number): string {
    let line = 1;
    let lineStart = 0;
    for (let at = this.text.indexOf('\n'); at !== -1 && at < position; at = this.text.indexOf('\n', at + 1)) {
      line++;
      lineStart = at + 1;
    }
    return `at position ${position} (line ${line} column ${position - lineStart + 1})`;
  }
}
