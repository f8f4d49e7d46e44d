/** `"auth": true` holds no secret to hide. */
const LITERALS = new Set(['true', 'false', 'null']);

/** The marker, repeated here: `redact-shapes` imports this scan. */
const REDACTED = '[REDACTED]';

/** Where a string token that started at `start` (its opening quote) ends: after its closing quote, or at the end. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i += 2;
    else if (c === 34 /* " */) return i + 1;
    else i++;
  }
  return text.length;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    i++;
  }
  return i;
}

/** Where a value that is not a string ends: a bracketed one at its matching bracket (strings skipped), else at `,`, `}`, `]` or space. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 123 /* { */ || first === 91 /* [ */) {
    let depth = 0;
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i = stringEnd(text, i);
        continue;
      }
      if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return text.length;
  }
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 44 || c === 125 || c === 93 || c === 32 || c === 9 || c === 10 || c === 13) break;
    i++;
  }
  return i;
}

function unescapeJson(raw: string): string {
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * Redacts the values of secret keys in text that was meant as JSON but does not parse (a model's
 * malformed arguments, or JSON inside a string): `"api_key": "…"`, `"token": 123`,
 * `"password": {…}` (a number or an object becomes `"[REDACTED]"`, so JSON stays JSON), an
 * unterminated value to the end. One pass, each character looked at a bounded number of times. The values
 * removed (unescaped, and as written) are pushed to `found`.
 */
export function redactJsonText(text: string, isSecretKey: (key: string) => boolean, found: string[]): string {
  let out = '';
  let from = 0;
  let i = text.indexOf('"');
  while (i !== -1 && i < text.length) {
    const end = stringEnd(text, i);
    const colon = skipSpace(text, end);
    if (text.charCodeAt(colon) !== 58 /* : */ || !isSecretKey(unescapeJson(text.slice(i + 1, end - 1)))) {
      i = text.indexOf('"', end);
      continue;
    }
    const start = skipSpace(text, colon + 1);
    if (start >= text.length) break;
    let valueStart = start;
    let valueStop: number;
    let next: number;
    const quoted = text.charCodeAt(start) === 34;
    if (quoted) {
      next = stringEnd(text, start);
      valueStart = start + 1;
      valueStop = text.charCodeAt(next - 1) === 34 && next - 1 > start ? next - 1 : next;
    } else {
      next = valueEnd(text, start);
      valueStop = next;
    }
    const raw = text.slice(valueStart, valueStop);
    if (raw !== '' && (quoted || !LITERALS.has(raw))) {
      found.push(raw);
      const unescaped = unescapeJson(raw);
      if (unescaped !== raw) found.push(unescaped);
      // A number or an object becomes the marker as a string: the JSON stays JSON.
      out += text.slice(from, valueStart) + (quoted ? REDACTED : `"${REDACTED}"`);
      from = valueStop;
    }
    i = text.indexOf('"', next);
  }
  return from === 0 ? text : out + text.slice(from);
}
