import { isToolError, ToolError } from '../executor/errors';

/** Disk trouble that will not fix itself by retrying. */
const LASTING_IO_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EFBIG']);

/**
 * Turns a Node file-system error into a ToolError a model can act on. `shown` is the path as the
 * model wrote it (never the real absolute path, which would leak the host's layout).
 * Unknown errors become a retryable `IO_ERROR`: disks hiccup (EIO, EMFILE, EBUSY) more often
 * than they break.
 */
export function fileError(error: unknown, shown: string): ToolError {
  // By name and shape, not instanceof: the production build can hold a copy of ToolError per chunk.
  if (isToolError(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return fileNotFound(shown, error);
    case 'EACCES':
    case 'EPERM':
      return new ToolError({
        code: 'PERMISSION_DENIED',
        kind: 'permission',
        message: `The operating system denied access to "${shown}".`,
        cause: error,
      });
    case 'EISDIR':
      return ToolError.parameter('IS_A_DIRECTORY', `"${shown}" is a folder, not a file.`, { cause: error });
    case 'ELOOP':
      return ToolError.parameter('SECURITY_VIOLATION', `"${shown}" is a symbolic link; it is not followed.`, {
        cause: error,
      });
    case 'ENAMETOOLONG':
      return ToolError.parameter('INVALID_PATH', `The path "${shown}" is too long.`, { cause: error });
    default: {
      const message = `Could not access "${shown}" (${code ?? (error instanceof Error ? error.message : 'unknown error')}).`;
      if (code && LASTING_IO_CODES.has(code)) return ToolError.business('IO_ERROR', message, { cause: error });
      return ToolError.temporary('IO_ERROR', message, { cause: error, details: code ? { errno: code } : undefined });
    }
  }
}

/** FILE_NOT_FOUND for `shown`, with a hint on how to look around. */
export function fileNotFound(shown: string, cause?: unknown): ToolError {
  return ToolError.business('FILE_NOT_FOUND', `There is no file at "${shown}" in the workspace.`, {
    hint: 'Check the path; read "." to list the workspace folder.',
    cause,
  });
}
