/**
 * Serialises a value for a JSON text column. `undefined` becomes SQL NULL (so it reads back as
 * `undefined`, while `null` reads back as `null`). Values `JSON.stringify` rejects — BigInts,
 * cycles, which a tool can return — are written in a lossy but readable form rather than losing
 * the whole trace.
 */
export function toJson(value: unknown): string | null {
  if (value === undefined) return null;
  try {
    return JSON.stringify(value) ?? null;
  } catch {
    return JSON.stringify(value, lenientReplacer()) ?? null;
  }
}

/** Reads a JSON text column written by `toJson`; SQL NULL is `undefined`. */
export function fromJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

function lenientReplacer() {
  const seen = new WeakSet<object>();
  return (_key: string, value: unknown): unknown => {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}
