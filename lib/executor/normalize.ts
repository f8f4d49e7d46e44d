import { errorData } from './errors';
import { isProcessOutput } from './process-output';
import type { Redactor } from './redact';
import type { AnyTool, ToolErrorData } from './types';
import { validateInput } from './validate-input';

export interface OutputLimits {
  /** Characters of serialized output the model receives before head-and-tail truncation. */
  maxModelOutputChars: number;
  /** Bytes of output, stdout and stderr each that the trace keeps (1 MiB default). */
  maxTraceBytes: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = { maxModelOutputChars: 16_000, maxTraceBytes: 1024 * 1024 };

export interface Normalized {
  /** Full (redacted, capped) output for the trace. */
  output: unknown;
  /** What the model receives: the output, or its head and tail with a marker. */
  modelOutput: unknown;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  truncated: boolean;
  parseFailed: boolean;
  error: ToolErrorData | null;
}

/** Keeps the head and the tail of a long text, with a marker saying how much was cut. */
export function truncateMiddle(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  const keep = Math.max(0, max - 64);
  const head = Math.ceil(keep * 0.7);
  const tail = keep - head;
  const cut = text.length - head - tail;
  const marker = `\n…[truncated ${cut} of ${text.length} characters]…\n`;
  return { text: text.slice(0, head) + marker + (tail > 0 ? text.slice(-tail) : ''), truncated: true };
}

function capText(text: string, maxBytes: number): string {
  // Characters approximate bytes closely enough for a storage cap; multi-byte text keeps less.
  return text.length <= maxBytes ? text : truncateMiddle(text, maxBytes).text;
}

function serialize(value: unknown): string | null {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return null;
  }
}

/**
 * Stage 5: turns whatever the tool returned into the one result shape.
 * 1. Process-like results: exit code decides success, stderr goes to the error or to metadata,
 *    stdout is parsed as JSON when it is JSON (`parseFailed` otherwise).
 * 2. Secrets found in the arguments (and secret-shaped values) are scrubbed from everything.
 * 3. The output schema, when declared, must accept the output (INVALID_OUTPUT otherwise).
 * 4. Large output is cut head-and-tail for the model; the trace keeps it up to a cap.
 */
export function normalizeOutput(
  tool: AnyTool,
  raw: unknown,
  redactor: Redactor,
  secrets: readonly string[],
  limits: OutputLimits,
): Normalized {
  let output: unknown = raw === undefined ? null : raw;
  let stdout: string | null = null;
  let stderr: string | null = null;
  let exitCode: number | null = null;
  let parseFailed = false;
  let error: ToolErrorData | null = null;

  if (isProcessOutput(raw)) {
    stdout = capText(redactor.scrubText(raw.stdout, secrets), limits.maxTraceBytes);
    stderr = capText(redactor.scrubText(raw.stderr, secrets), limits.maxTraceBytes);
    exitCode = raw.exitCode;
    const trimmed = stdout.trim();
    try {
      output = trimmed === '' ? '' : JSON.parse(trimmed);
    } catch {
      output = stdout;
      parseFailed = true;
    }
    if (raw.exitCode !== 0) {
      const tail = truncateMiddle(stderr.trim(), 2_000).text;
      error = errorData(
        'NON_ZERO_EXIT',
        `The command exited with code ${raw.exitCode}${raw.signal ? ` (${raw.signal})` : ''}${tail ? `: ${tail}` : '.'}`,
        {
          kind: 'business',
          retryable: false,
          hint: 'Read the error output above and change the command or its arguments.',
          details: { exitCode: raw.exitCode, ...(raw.signal ? { signal: raw.signal } : {}) },
          stage: 'normalize',
        },
      );
    }
  } else {
    output = redactor.scrubValue(output, secrets);
  }

  let text = serialize(output);
  if (text === null) {
    error ??= errorData('INVALID_OUTPUT', `${tool.name} returned a value that is not JSON-serializable.`, {
      stage: 'normalize',
    });
    output = String(output);
    text = output as string;
  }

  if (!error && tool.outputSchema) {
    const checked = validateInput(tool.name, tool.outputSchema, output);
    if (!checked.ok) {
      const issues = (checked.error.details?.issues ?? []) as { path: string; message: string }[];
      error = errorData(
        'INVALID_OUTPUT',
        `${tool.name} returned output that does not match its declared schema: ${issues
          .slice(0, 5)
          .map((i) => `${i.path || '(output)'}: ${i.message}`)
          .join('; ')}.`,
        { details: { issues }, stage: 'normalize' },
      );
    }
  }

  let truncated = false;
  if (text.length > limits.maxTraceBytes) {
    output = truncateMiddle(text, limits.maxTraceBytes).text;
    truncated = true;
  }
  let modelOutput = output;
  const forModel = truncateMiddle(text, tool.maxModelOutputChars ?? limits.maxModelOutputChars);
  if (forModel.truncated) {
    modelOutput = forModel.text;
    truncated = true;
  }
  return { output, modelOutput, stdout, stderr, exitCode, truncated, parseFailed, error };
}
