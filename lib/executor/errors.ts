import type { StageName, ToolErrorData } from './types';

/**
 * How a failure is classified; decides its default retryability and what the UI says about it.
 * - parameter: the model sent something wrong; retrying the same call cannot help.
 * - temporary: the world hiccupped (network reset, 429, 5xx); the same call may work later.
 * - business: the tool ran and said no (file not found, non-zero exit).
 * - timeout: the attempt ran past its deadline.
 * - permission: policy or a person refused the call.
 * - limit: the call hit a limit Toolscope enforces (output size...); the same call hits it again.
 * - internal: Toolscope itself failed or the call was cancelled.
 */
export type ErrorKind = 'parameter' | 'temporary' | 'business' | 'timeout' | 'permission' | 'limit' | 'internal';

interface CodeInfo {
  retryable: boolean;
  kind: ErrorKind;
  /** Said to the model after the message: what to change. */
  hint: string;
}

/** The executor's own error codes. Tools add their own (FILE_NOT_FOUND, NON_ZERO_EXIT...). */
export const ERROR_CODES = {
  /** Arguments were not JSON or did not match the tool's schema. */
  INVALID_ARGUMENTS: {
    retryable: false,
    kind: 'parameter',
    hint: 'Fix the arguments named above to match the tool schema, then call again.',
  },
  /** No tool of that name is registered. */
  UNKNOWN_TOOL: { retryable: false, kind: 'parameter', hint: 'Call one of the tools you were given.' },
  /** Policy or a person refused the call. */
  PERMISSION_DENIED: {
    retryable: false,
    kind: 'permission',
    hint: 'Do not repeat this call; choose another approach or ask the user.',
  },
  /** Nobody approved the call in time. */
  APPROVAL_TIMEOUT: {
    retryable: false,
    kind: 'permission',
    hint: 'No one answered in time: do not repeat the call unasked; tell the user it needs their approval.',
  },
  /** An attempt ran past its deadline. */
  TIMEOUT: { retryable: true, kind: 'timeout', hint: 'Try again later or with a smaller request.' },
  /** The tool failed in a way it did not classify. */
  EXECUTION_ERROR: { retryable: false, kind: 'business', hint: 'Check the arguments or try another approach.' },
  /** The tool returned something its output schema rejects. */
  INVALID_OUTPUT: {
    retryable: false,
    kind: 'business',
    hint: 'The tool returned malformed data; do not rely on it.',
  },
  /** Too many recent failures: the tool is not being called for a while. */
  CIRCUIT_OPEN: {
    retryable: true,
    kind: 'temporary',
    hint: 'The tool is failing repeatedly; wait before calling it again.',
  },
  /** The call was cancelled before it finished. */
  CANCELLED: {
    retryable: true,
    kind: 'internal',
    hint: 'The call did not run to completion; call again if still needed.',
  },
  /** The output passed a limit Toolscope enforces (the details name the limit and its value). */
  OUTPUT_LIMIT: {
    retryable: false,
    kind: 'limit',
    hint: 'The same call will hit the same limit: narrow the command (filter, head, a smaller range) or read the output in pages.',
  },
  /** The trace store could not record the call, so it was not run. */
  TRACE_UNAVAILABLE: {
    retryable: true,
    kind: 'internal',
    hint: 'Toolscope could not record the call; try again shortly.',
  },
  /** The tool belongs to an MCP server that is not connected now (down, reconnecting). */
  UPSTREAM_UNAVAILABLE: {
    retryable: true,
    kind: 'temporary',
    hint: 'The server is reconnecting on its own: try the call again in a little while.',
  },
  /** A defect in Toolscope's own pipeline (not the tool's): the call ended failed, the error and its stack in the trace. */
  INTERNAL_ERROR: {
    retryable: false,
    kind: 'internal',
    hint: 'This is a bug in Toolscope, recorded in the trace: do not repeat the call unasked; tell the user.',
  },
  /** The call's sealed arguments could not be opened (the vault key is missing or another one), so it did not run. */
  VAULT_KEY_MISMATCH: {
    retryable: false,
    kind: 'internal',
    hint: 'Toolscope lost the arguments it kept for this call: make the call again if it is still needed.',
  },
  /** The arguments hold secrets and the vault has no key to seal them (see `vault-state.ts`), so the call did not run. */
  VAULT_KEY_MISSING: {
    retryable: false,
    kind: 'internal',
    hint: 'Toolscope cannot keep secrets until its operator restores the vault key: tell the user; calls without secrets still run.',
  },
  /** Recording mode: the recorded session has no call with this tool and these arguments, and nothing ran. */
  RECORDING_MISS: {
    retryable: false,
    kind: 'parameter',
    hint: 'Only calls made in the recorded session can be answered: make the call as it was recorded, or record the session again.',
  },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

const DEFAULT_RETRYABLE: Record<ErrorKind, boolean> = {
  parameter: false,
  temporary: true,
  business: false,
  timeout: true,
  permission: false,
  limit: false,
  internal: false,
};

interface ToolErrorInit {
  code: string;
  message: string;
  kind?: ErrorKind;
  retryable?: boolean;
  hint?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The error tools throw to say what went wrong in a way the executor and the model understand.
 * @example throw ToolError.temporary('UPSTREAM_BUSY', 'The API answered 503')
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly code: string;
  readonly kind: ErrorKind;
  readonly retryable: boolean;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(init: ToolErrorInit) {
    super(init.message, { cause: init.cause });
    const known = ERROR_CODES[init.code as ErrorCode] as CodeInfo | undefined;
    this.code = init.code;
    this.kind = init.kind ?? known?.kind ?? 'business';
    this.retryable = init.retryable ?? known?.retryable ?? DEFAULT_RETRYABLE[this.kind];
    this.hint = init.hint ?? known?.hint;
    this.details = init.details;
  }

  /** A failure that may go away on its own: retried. */
  static temporary(code: string, message: string, extra?: Omit<ToolErrorInit, 'code' | 'message' | 'kind'>) {
    return new ToolError({ ...extra, code, message, kind: 'temporary' });
  }

  /** The arguments are wrong in a way the schema could not say: not retried. */
  static parameter(code: string, message: string, extra?: Omit<ToolErrorInit, 'code' | 'message' | 'kind'>) {
    return new ToolError({ ...extra, code, message, kind: 'parameter' });
  }

  /** The tool worked and the answer is no: not retried. */
  static business(code: string, message: string, extra?: Omit<ToolErrorInit, 'code' | 'message' | 'kind'>) {
    return new ToolError({ ...extra, code, message, kind: 'business' });
  }

  toData(stage?: StageName): ToolErrorData {
    return errorData(this.code, this.message, {
      kind: this.kind,
      retryable: this.retryable,
      hint: this.hint,
      details: this.details,
      stage,
    });
  }
}

/**
 * Whether `error` is a `ToolError` from any copy of this module: matched by name and shape, not
 * `instanceof`, because the production build can hold a copy of the class per chunk.
 */
export function isToolError(error: unknown): error is ToolError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Partial<ToolError>;
  return e.name === 'ToolError' && typeof e.code === 'string' && typeof e.toData === 'function';
}

/** Builds the data form of an error, filling kind, retryable and hint from the code's defaults. */
export function errorData(
  code: string,
  message: string,
  extra: Partial<Omit<ToolErrorData, 'code' | 'message'>> = {},
): ToolErrorData {
  const known = ERROR_CODES[code as ErrorCode] as CodeInfo | undefined;
  const kind = extra.kind ?? known?.kind ?? 'business';
  const data: ToolErrorData = {
    code,
    message,
    retryable: extra.retryable ?? known?.retryable ?? DEFAULT_RETRYABLE[kind],
    kind,
  };
  const hint = extra.hint ?? known?.hint;
  if (hint) data.hint = hint;
  if (extra.details) data.details = extra.details;
  if (extra.stage) data.stage = extra.stage;
  return data;
}

/** Socket and fetch (undici) error codes that mean the network hiccupped: the same call may work. */
export const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function findNetworkCode(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return code;
  return findNetworkCode((error as { cause?: unknown }).cause, depth + 1);
}

function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' ? value : undefined;
}

/**
 * Turns anything a tool threw into error data. The one place unknown throws are classified:
 * network resets, HTTP 429 and 5xx are temporary (retryable); everything else is not.
 */
export function classifyError(error: unknown, stage: StageName = 'execute'): ToolErrorData {
  if (isToolError(error)) return error.toData(stage);
  const message = error instanceof Error ? error.message || error.name : safeString(error);
  const networkCode = findNetworkCode(error);
  if (networkCode) {
    return errorData('EXECUTION_ERROR', message, {
      kind: 'temporary',
      retryable: true,
      hint: 'A network error occurred; the same call may work if retried.',
      details: { cause: networkCode },
      stage,
    });
  }
  const status = httpStatusOf(error);
  if (status !== undefined && (status === 429 || status >= 500)) {
    return errorData('EXECUTION_ERROR', message, {
      kind: 'temporary',
      retryable: true,
      hint: 'The upstream service is busy or failing; the same call may work if retried.',
      details: { status },
      stage,
    });
  }
  const details: Record<string, unknown> = {};
  if (error instanceof Error && error.name !== 'Error') details.name = error.name;
  if (status !== undefined) details.status = status;
  return errorData('EXECUTION_ERROR', message, {
    stage,
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
}

function safeString(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
