/**
 * Whether `items` (a path's segments, a command's arguments) fit `blocks`: runs of one-item patterns
 * with "any number of items, none included" between each two runs, and nothing before the first
 * run or after the last. The first and last runs are anchored; each run between them is placed at
 * its first fit after the previous one (a later fit would only leave less room for the rest). So a
 * match costs at most items × patterns item comparisons, and never backtracks.
 * @example
 * // `git * push *`: blocks [['git'], ['push'], []]
 * matchSequence([['git'], ['push'], []], ['git', '-C', 'dir', 'push'], (p, a) => p === a) // true
 */
export function matchSequence<P, T>(
  blocks: readonly (readonly P[])[],
  items: readonly T[],
  matches: (pattern: P, item: T) => boolean,
): boolean {
  const fits = (block: readonly P[], at: number) => block.every((pattern, i) => matches(pattern, items[at + i] as T));
  const head = blocks[0] as readonly P[];
  if (blocks.length === 1) return items.length === head.length && fits(head, 0);
  const tail = blocks[blocks.length - 1] as readonly P[];
  const end = items.length - tail.length;
  if (end < head.length || !fits(head, 0) || !fits(tail, end)) return false;
  let from = head.length;
  for (let b = 1; b < blocks.length - 1; b++) {
    const block = blocks[b] as readonly P[];
    let at = from;
    while (at + block.length <= end && !fits(block, at)) at++;
    if (at + block.length > end) return false;
    from = at + block.length;
  }
  return true;
}

/** Splits a pattern's items at its "any number of items" markers: `[a, *, b]` → `[[a], [b]]`. */
export function blocksOf<P, W extends P>(words: readonly P[], isAny: (word: P) => word is W): Exclude<P, W>[][] {
  const blocks: Exclude<P, W>[][] = [[]];
  for (const word of words) {
    if (isAny(word)) blocks.push([]);
    else (blocks[blocks.length - 1] as Exclude<P, W>[]).push(word as Exclude<P, W>);
  }
  return blocks;
}
