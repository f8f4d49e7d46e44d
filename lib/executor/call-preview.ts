/**
 * How a person reads a call: a one-line summary for lists and a structured preview for the
 * approval card and the trace, each tool giving its own (`ToolDefinition.describe`). Both are
 * made from the redacted arguments, so they never hold a secret the stored arguments do not.
 */

/** A text cut to a bound: `omitted` characters left out at its end (0: the whole text). */
export interface BoundedText {
  text: string;
  omitted: number;
}

/** One line of a diff, numbered on the side(s) it belongs to; `skip`: unchanged lines left out. */
export type PreviewDiffLine =
  | { kind: 'same' | 'added' | 'removed'; text: string; oldNo: number | null; newNo: number | null }
  | { kind: 'skip'; count: number };

/** What writing a file would change, against the file on disk now. */
export type FileChange =
  | { kind: 'new' }
  | { kind: 'same' }
  /** Hunks with 3 lines of context; `omitted`: diff lines past the bound. */
  | { kind: 'diff'; added: number; removed: number; lines: PreviewDiffLine[]; omitted: number }
  /** The file could not be compared (a folder, binary, too large, too different to diff quickly, unreadable). */
  | { kind: 'unknown'; reason: string };

/** A call as the approval card shows it, above (or instead of) its raw arguments. */
export type CallPreview =
  /** A program run with arguments: one command line, quoted for sh. */
  | { kind: 'command'; line: BoundedText; cwd: string | null; stdin: BoundedText | null }
  /**
   * A file written whole: its new content, and what that changes (null when not compared: a
   * call no longer pending, whose file on disk says nothing about it).
   */
  | { kind: 'file'; path: string; lines: number; bytes: number; content: BoundedText; change: FileChange | null }
  /** An HTTP request: `METHOD URL`, headers and body below. */
  | {
      kind: 'request';
      method: string;
      url: string;
      headers: { name: string; value: string }[];
      body: BoundedText | null;
    }
  /** Arguments that read best as one line (a path, an expression). */
  | { kind: 'text'; text: string }
  /** No better form than the arguments themselves. */
  | { kind: 'arguments' };

/**
 * A tool's reading of its calls. Arguments are the redacted ones, any shape (a call that failed
 * validation has arguments the schema refuses): each method returns null for what it cannot read,
 * and the caller falls back to a generic form.
 */
export interface CallDescriber {
  /**
   * One line: `git commit -m 'fix it'`, `POST api.example.com/v1/items`, `notes/a.md (3 lines)`.
   * With `cut`, `args` are the start of longer arguments (a list row's preview): what was cut off
   * is missing, so say less rather than something wrong.
   */
  summary(args: Record<string, unknown>, cut: boolean): string | null;
  /** The call as the approval card shows it. */
  preview(args: Record<string, unknown>): CallPreview | null;
  /**
   * For a call still pending: the preview with what the call would change now, read from the
   * machine (`write_file`: the diff against the file on disk), every text read there passed
   * through `scrub` (secrets). Absent: `preview` says it all.
   */
  previewNow?(args: Record<string, unknown>, scrub: (text: string) => string): Promise<CallPreview | null>;
}
