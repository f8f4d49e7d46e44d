/**
 * What a running attempt has printed so far, per stream, bounded like the final record: the head
 * is kept up to `maxChars` and the rest only counted, so a chatty process costs no more than the cap.
 */
export interface LiveOutput {
  write(stream: 'stdout' | 'stderr', text: string): void;
  /** Forgets everything: each attempt starts with empty streams. */
  reset(): void;
  /** The stream's text so far (with a marker when some was dropped), or null when it printed nothing. */
  text(stream: 'stdout' | 'stderr'): string | null;
  /** Whether anything was written since the last reset. */
  readonly written: boolean;
}

/** Creates the bounded live streams of one call. */
export function createLiveOutput(maxChars: number): LiveOutput {
  const kept = { stdout: '', stderr: '' };
  const dropped = { stdout: 0, stderr: 0 };
  let written = false;
  return {
    get written() {
      return written;
    },
    write(stream, text) {
      if (typeof text !== 'string' || text.length === 0) return;
      written = true;
      const room = maxChars - kept[stream].length;
      if (room >= text.length) {
        kept[stream] += text;
        return;
      }
      if (room > 0) kept[stream] += text.slice(0, room);
      dropped[stream] += text.length - Math.max(0, room);
    },
    reset() {
      kept.stdout = '';
      kept.stderr = '';
      dropped.stdout = 0;
      dropped.stderr = 0;
      written = false;
    },
    text(stream) {
      if (!kept[stream] && dropped[stream] === 0) return null;
      if (dropped[stream] === 0) return kept[stream];
      return `${kept[stream]}\n…[${dropped[stream]} more characters not kept: over the ${maxChars}-character cap]…`;
    },
  };
}
