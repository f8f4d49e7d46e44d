import { errorData } from './errors';
import { isProcessOutput } from './process-output';
import type { Redactor } from './redact';
import { truncateMiddle } from './truncate';
import type { AnyTool, ModelTruncation, ToolErrorData } from './types';
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
  /** `modelOutput` as the text of the model's message (a string as is, anything else as JSON). */
  modelText: string;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  truncated: boolean;
  /** Set when the model received only the head and tail of the output. */
  modelTruncation: ModelTruncation | null;
  parseFailed: boolean;
  error: ToolErrorData | null;
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
 * 1. Process-like results: stdout is parsed as JSON when it is JSON (`parseFailed` otherwise);
 *    stderr and the exit code are kept. (The execute stage already decided whether it failed.)
 * 2. Secrets found in the arguments (and secret-shaped values) are scrubbed from everything.
 * 3. The output schema, when declared, must accept the output (INVALID_OUTPUT otherwise); not
 *    checked for the output of a failed attempt, which is only kept for the trace.
 * 4. Large output is cut head-and-tail for the model; the trace keeps it up to a cap.
 */
export function normalizeOutput(
  tool: AnyTool,
  raw: unknown,
  redactor: Redactor,
  secrets: readonly string[],
  limits: OutputLimits,
  failedAttempt = false,
): Normalized {
  let output: unknown = raw === undefined ? null : raw;
  let stdout: string | null = null;
  let stderr: string | null = null;
  let exitCode: number | null = null;
  let parseFailed = false;
  let error: ToolErrorData | null = null;

  if (isProcessOutput(raw)) {
    stdout = capText(redactor.scrubText(String(raw.stdout ?? ''), secrets), limits.maxTraceBytes);
    stderr = capText(redactor.scrubText(String(raw.stderr ?? ''), secrets), limits.maxTraceBytes);
    exitCode = raw.exitCode;
    const trimmed = stdout.trim();
    try {
      output = trimmed === '' ? '' : JSON.parse(trimmed);
    } catch {
      output = stdout;
      parseFailed = true;
    }
  } else {
    output = redactor.scrubValue(output, secrets);
  }

  let text = serialize(output);
  if (text === null) {
    error = errorData('INVALID_OUTPUT', `${tool.name} returned a value that is not JSON-serializable.`, {
      stage: 'normalize',
    });
    output = String(output);
    text = output as string;
  }

  if (!error && !failedAttempt && tool.outputSchema) {
    // A large output is checked up to its first failing field (see validateInput): no stall.
    const checked = validateInput(tool.name, tool.outputSchema, output, text.length);
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
  let modelTruncation: ModelTruncation | null = null;
  const maxModel = tool.maxModelOutputChars ?? limits.maxModelOutputChars;
  const forModel = text.length > maxModel ? truncateMiddle(text, maxModel) : null;
  if (forModel) {
    modelOutput = forModel.text;
    truncated = true;
    modelTruncation = {
      headChars: forModel.headChars,
      tailChars: forModel.tailChars,
      totalChars: forModel.totalChars,
    };
  }
  const modelText = typeof modelOutput === 'string' ? modelOutput : text;
  return { output, modelOutput, modelText, stdout, stderr, exitCode, truncated, modelTruncation, parseFailed, error };
}
