/** The result of reading as much of a cut JSON text as parses. */
export type JsonPrefix =
  | { ok: true; value: unknown; complete: boolean; parsedChars: number; totalChars: number }
  | { ok: false; reason: string };

interface Frame {
  closer: '}' | ']';
  expect: 'key' | 'colon' | 'value' | 'next';
}

const LITERALS = ['true', 'false', 'null'];
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const MARKER = /…\[truncated \d+ of \d+ characters\]…/;
/** What `run_shell` appends to a stream cut at its output cap. */
const CAP_MARKER = /\n\[\.\.\. (?:stdout|stderr) truncated \.\.\.\]$/;

/**
 * Parses JSON that may have been cut off (head-and-tail truncation, a size cap): the longest
 * prefix that ends after a complete value is kept and its open brackets are closed, so
 * `{"items":[1,2,{"a":` reads as `{"items":[1,2]}`. One linear pass, then one `JSON.parse`.
 * Text after a truncation marker is ignored. Fails with a reason when nothing before the cut
 * parses or the text is not JSON at all — also when it starts like JSON but goes wrong before its
 * end (`[INFO] started`, `{"a":1} and more`): a cut text only goes wrong where it was cut.
 */
export function parseJsonPrefix(input: string): JsonPrefix {
  const marker = MARKER.exec(input) ?? CAP_MARKER.exec(input);
  const text = marker ? input.slice(0, marker.index) : input;
  const totalChars = input.length;
  try {
    if (!marker) return { ok: true, value: JSON.parse(text), complete: true, parsedChars: text.length, totalChars };
  } catch {
    // cut or malformed: read as far as it goes
  }
  const stack: Frame[] = [];
  let safe = { pos: -1, closers: '' };
  const closers = () =>
    stack
      .map((f) => f.closer)
      .reverse()
      .join('');
  // A value ended at `pos`: the text up to there, with open brackets closed, is valid JSON.
  const valueEnded = (pos: number) => {
    const top = stack.at(-1);
    if (top) top.expect = 'next';
    safe = { pos, closers: closers() };
  };
  let i = 0;
  let topLevelDone = false;
  /** The scan stopped in a token the cut left unfinished (a string, a number). */
  let cutInToken = false;
  scan: while (i < text.length) {
    const ch = text[i]!;
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') {
      i++;
      continue;
    }
    const top = stack.at(-1);
    if (topLevelDone) break;
    const expectsValue = !top || top.expect === 'value';
    if (ch === '{' || ch === '[') {
      if (!expectsValue) break;
      stack.push({ closer: ch === '{' ? '}' : ']', expect: ch === '{' ? 'key' : 'value' });
      i++;
      safe = { pos: i, closers: closers() };
      continue;
    }
    if (ch === '}' || ch === ']') {
      if (!top || top.closer !== ch || top.expect === 'colon') break;
      stack.pop();
      i++;
      valueEnded(i);
      if (stack.length === 0) topLevelDone = true;
      continue;
    }
    if (ch === ',') {
      if (top?.expect !== 'next') break;
      top.expect = top.closer === '}' ? 'key' : 'value';
      i++;
      continue;
    }
    if (ch === ':') {
      if (top?.expect !== 'colon') break;
      top.expect = 'value';
      i++;
      continue;
    }
    if (ch === '"') {
      const isKey = top?.expect === 'key';
      if (!isKey && !expectsValue) break;
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) {
        cutInToken = true; // the cut fell inside this string
        break;
      }
      i = j + 1;
      if (isKey) top!.expect = 'colon';
      else {
        valueEnded(i);
        if (stack.length === 0) topLevelDone = true;
      }
      continue;
    }
    if (!expectsValue) break;
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(text);
    if (number) {
      const end = i + number[0].length;
      // a number touching the cut may be missing digits (`1` of `1.5`, `2` of `2e+3`)
      if (end >= text.length || (text.length - end <= 2 && /^(?:\.|[eE][+-]?)$/.test(text.slice(end)))) {
        cutInToken = true;
        break;
      }
      i = end;
      valueEnded(i);
      if (stack.length === 0) topLevelDone = true;
      continue;
    }
    for (const literal of LITERALS) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        valueEnded(i);
        if (stack.length === 0) topLevelDone = true;
        continue scan;
      }
    }
    break;
  }
  const rest = text.slice(i).trimEnd();
  const atCut =
    rest === '' ||
    cutInToken ||
    rest === '-' ||
    LITERALS.some((literal) => rest.length < literal.length && literal.startsWith(rest));
  if (!atCut) {
    return { ok: false, reason: `Not JSON: unexpected ${JSON.stringify(rest.slice(0, 12))} at character ${i + 1}` };
  }
  if (safe.pos < 0) return { ok: false, reason: 'Not JSON: nothing before the cut parses.' };
  try {
    const value = JSON.parse(text.slice(0, safe.pos) + safe.closers);
    return { ok: true, value, complete: false, parsedChars: safe.pos, totalChars };
  } catch (error) {
    return { ok: false, reason: `Not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}
