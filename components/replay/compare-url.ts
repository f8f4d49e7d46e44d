/** The compare view of two calls (a call and its replay: the original first). */
export const compareUrl = (original: string, other: string) =>
  `/traces/${encodeURIComponent(original)}/compare/${encodeURIComponent(other)}`;

/** The comparison of a session and its replay. */
export const sessionCompareUrl = (original: string, other: string) =>
  `/sessions/${encodeURIComponent(original)}/compare/${encodeURIComponent(other)}`;
