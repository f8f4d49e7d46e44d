/** A text cut head-and-tail: how many characters of each end were kept, of how many. */
export interface TruncatedText {
  text: string;
  truncated: boolean;
  headChars: number;
  tailChars: number;
  totalChars: number;
}

/** Keeps the head and the tail of a long text, with a marker saying how much was cut. */
export function truncateMiddle(text: string, max: number): TruncatedText {
  const totalChars = text.length;
  if (totalChars <= max) return { text, truncated: false, headChars: totalChars, tailChars: 0, totalChars };
  const keep = Math.max(0, max - 64);
  const headChars = Math.ceil(keep * 0.7);
  const tailChars = keep - headChars;
  const cut = totalChars - headChars - tailChars;
  const marker = `\n…[truncated ${cut} of ${totalChars} characters]…\n`;
  return {
    text: text.slice(0, headChars) + marker + (tailChars > 0 ? text.slice(-tailChars) : ''),
    truncated: true,
    headChars,
    tailChars,
    totalChars,
  };
}
