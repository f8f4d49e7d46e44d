/** Replaces every occurrence of any of a set of strings in a text. */
export interface SecretMatcher {
  replaceAll(text: string, replacement: string): string;
}

/**
 * Builds an Aho-Corasick automaton over the secrets, so that scrubbing a text of length n costs
 * O(n) whatever their number: searching for each secret in turn costs O(n) per secret, and a
 * request with 40,000 secret-keyed values, each scrubbed from every string of the output, made
 * that quadratic in the request's size (tens of seconds).
 *
 * Nodes live in typed arrays sized by the secrets' total length (20 bytes a character): a node's
 * first child sits beside it, only branching nodes get a map, so a 1 MiB secret costs 20 MB and
 * milliseconds, not a million map entries.
 *
 * Overlapping occurrences are replaced as one span (a secret inside another leaves nothing of
 * either visible); adjacent ones each get their own replacement.
 * @example createSecretMatcher(['hunter22']).replaceAll('pw hunter22', '[REDACTED]') // 'pw [REDACTED]'
 */
export function createSecretMatcher(secrets: readonly string[]): SecretMatcher {
  const unique = [...new Set(secrets)].filter((secret) => secret.length > 0);
  const capacity = unique.reduce((sum, secret) => sum + secret.length, 1);
  /** The code unit and node of each node's first child (-1: none). */
  const firstCode = new Int32Array(capacity).fill(-1);
  const firstChild = new Int32Array(capacity);
  /** Further children of branching nodes, by code unit. */
  const more = new Map<number, Map<number, number>>();
  const fail = new Int32Array(capacity);
  /** Length of the longest secret that ends at each node (0: none). */
  const longest = new Int32Array(capacity);
  let nodes = 1;

  const step = (node: number, code: number): number => {
    if (firstCode[node] === code) return firstChild[node]!;
    return more.get(node)?.get(code) ?? -1;
  };
  const children = (node: number): number[] => {
    if (firstCode[node] === -1) return [];
    const list = [firstChild[node]!];
    for (const child of more.get(node)?.values() ?? []) list.push(child);
    return list;
  };
  const codeOf = new Int32Array(capacity);

  for (const secret of unique) {
    let node = 0;
    for (let i = 0; i < secret.length; i++) {
      const code = secret.charCodeAt(i);
      let child = step(node, code);
      if (child === -1) {
        child = nodes++;
        codeOf[child] = code;
        if (firstCode[node] === -1) {
          firstCode[node] = code;
          firstChild[node] = child;
        } else {
          const branch = more.get(node) ?? new Map<number, number>();
          branch.set(code, child);
          more.set(node, branch);
        }
      }
      node = child;
    }
    longest[node] = secret.length;
  }

  // Breadth first, so a node's failure link (a shallower node) is final before the node is used.
  const queue = children(0);
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const child of children(node)) {
      const code = codeOf[child]!;
      let link = fail[node]!;
      let target = step(link, code);
      while (target === -1 && link !== 0) {
        link = fail[link]!;
        target = step(link, code);
      }
      fail[child] = target === -1 ? 0 : target;
      // A secret ending here is longer than any ending at the failure link (a proper suffix).
      if (longest[child] === 0) longest[child] = longest[fail[child]!]!;
      queue.push(child);
    }
  }

  return {
    replaceAll(text, replacement) {
      if (nodes === 1) return text;
      /** Spans to replace, [start, end) pairs, disjoint and in order. */
      const spans: number[] = [];
      let node = 0;
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        let next = step(node, code);
        while (next === -1 && node !== 0) {
          node = fail[node]!;
          next = step(node, code);
        }
        node = next === -1 ? 0 : next;
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
