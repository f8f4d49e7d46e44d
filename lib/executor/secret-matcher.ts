/** Replaces every occurrence of any of a set of strings in a text. */
export interface SecretMatcher {
  replaceAll(text: string, replacement: string): string;
}

/**
 * Builds an Aho-Corasick automaton over the secrets, so that scrubbing a text of length n costs
 * O(n) whatever their number: searching for each secret in turn costs O(n) per secret, and a
 * request with 50,000 secret-keyed values, each scrubbed from every string of the output, made
 * that quadratic in the request's size.
 *
 * Overlapping occurrences are replaced as one span (a secret inside another leaves nothing of
 * either visible); adjacent ones each get their own replacement.
 * @example createSecretMatcher(['hunter22']).replaceAll('pw hunter22', '[REDACTED]') // 'pw [REDACTED]'
 */
export function createSecretMatcher(secrets: readonly string[]): SecretMatcher {
  // Transitions of every node in one map, keyed by node * 2^16 + UTF-16 code unit.
  const next = new Map<number, number>();
  /** Per node: its failure link, and the length of the longest secret ending at it (0: none). */
  const fail: number[] = [0];
  const longest: number[] = [0];
  const edges: number[][] = [[]];

  for (const secret of new Set(secrets)) {
    if (secret.length === 0) continue;
    let node = 0;
    for (let i = 0; i < secret.length; i++) {
      const key = node * 0x10000 + secret.charCodeAt(i);
      let child = next.get(key);
      if (child === undefined) {
        child = fail.length;
        next.set(key, child);
        fail.push(0);
        longest.push(0);
        edges.push([]);
        edges[node]!.push(secret.charCodeAt(i));
      }
      node = child;
    }
    longest[node] = secret.length;
  }

  // Breadth first, so a node's failure link (a shallower node) is final before the node is used.
  const queue: number[] = [];
  for (const code of edges[0]!) queue.push(next.get(code)!);
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const code of edges[node]!) {
      const child = next.get(node * 0x10000 + code)!;
      let link = fail[node]!;
      while (link !== 0 && !next.has(link * 0x10000 + code)) link = fail[link]!;
      const target = next.get(link * 0x10000 + code);
      fail[child] = target !== undefined && target !== child ? target : 0;
      // A secret ending here is longer than any ending at the failure link (a proper suffix).
      if (longest[child] === 0) longest[child] = longest[fail[child]!]!;
      queue.push(child);
    }
  }

  return {
    replaceAll(text, replacement) {
      if (fail.length === 1) return text;
      /** Spans to replace, [start, end) pairs, disjoint and in order. */
      const spans: number[] = [];
      let node = 0;
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        let child = next.get(node * 0x10000 + code);
        while (child === undefined && node !== 0) {
          node = fail[node]!;
          child = next.get(node * 0x10000 + code);
        }
        node = child ?? 0;
        const length = longest[node]!;
        if (length === 0) continue;
        let start = i + 1 - length;
        // Merge with the spans this occurrence overlaps (each span is popped at most once).
        while (spans.length > 0 && spans[spans.length - 1]! > start) {
          const spanStart = spans[spans.length - 2]!;
          spans.length -= 2;
          if (spanStart < start) start = spanStart;
        }
        spans.push(start, i + 1);
      }
      if (spans.length === 0) return text;
      let out = '';
      let from = 0;
      for (let s = 0; s < spans.length; s += 2) {
        out += text.slice(from, spans[s]) + replacement;
        from = spans[s + 1]!;
      }
      return out + text.slice(from);
    },
  };
}
