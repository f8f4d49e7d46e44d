/**
 * `text` in at most `max` characters, its middle replaced by `…` when longer: both ends of a long
 * tool name say which it is (`github__create_pull_request_review_comment` in 30 characters is
 * `github__create…_review_comment`). The end keeps the larger half; a character outside the BMP
 * is never split.
 * @example shortenMiddle('abcdefghij', 7) // 'abc…hij'
 */
export function shortenMiddle(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  if (max <= 1) return '…'.slice(0, Math.max(0, max));
  const kept = max - 1;
  const head = Math.floor(kept / 2);
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (kept - head)).join('')}`;
}
