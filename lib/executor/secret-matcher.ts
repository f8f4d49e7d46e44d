function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Whether text[start, end) is not glued to letters or digits on either side. */
function standsAlone(text: string, start: number, end: number): boolean {
  if (start > 0 && isWordCode(text.charCodeAt(start)) && isWordCode(text.charCodeAt(start - 1))) return false;
  return !(end < text.length && isWordCode(text.charCodeAt(end - 1)) && isWordCode(text.charCodeAt(end)));
}

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
 * either visible); adjacent ones each get their own replacement. Secrets shorter than
 * `boundedBelow` match only where they stand alone: no letter or digit just before or after
 * (where the secret itself starts or ends with one).
 * @example createSecretMatcher(['hunter22']).replaceAll('pw hunter22', '[REDACTED]') // 'pw [REDACTED]'
 */
export function createSecretMatcher(
  secrets: readonly string[],
  options: { boundedBelow?: number } = {},
): SecretMatcher {
  const boundedBelow = options.boundedBelow ?? 0;
  const unique = [...new Set(secrets)].filter((secret) => secret.length > 0);
  const capacity = unique.reduce((sum, secret) => sum + secret.length, 1);
  /** The code unit and node of each node's first child (-1: none). */
  const firstCode = new Int32Array(capacity).fill(-1);
  const firstChild = new Int32Array(capacity);
  /** Further children of branching nodes, by code unit. */
  const more = new Map<number, Map<number, number>>();
  const fail = new Int32Array(capacity);
  /** Length of the secret that ends exactly at each node (0: none). */
  const own = new Int32Array(capacity);
  /** The nearest node on each node's failure chain where a secret ends (-1: none). */
  const dict = new Int32Array(capacity).fill(-1);
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
    own[node] = secret.length;
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
      const linked = target === -1 ? 0 : target;
      fail[child] = linked;
      // The secrets that end here, after its own: those ending at the failure link (its suffixes).
      dict[child] = own[linked]! > 0 ? linked : dict[linked]!;
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
        let found = own[node]! > 0 ? node : dict[node]!;
        if (found === -1) continue;
        // A short secret counts only as a word of its own: "sess" must not rewrite "session".
        // Every secret on this chain is shorter than the last, so at most `boundedBelow` are tried.
        while (found !== -1 && own[found]! < boundedBelow && !standsAlone(text, i + 1 - own[found]!, i + 1)) {
          found = dict[found]!;
        }
        if (found === -1) continue;
        let start = i + 1 - own[found]!;
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
