import { describe, expect, it, vi } from 'vitest';
import { ToolError } from '../executor/errors';
import { fileError, fileNotFound } from './file-errors';

/** The shape Node gives its file-system errors. */
const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('fileError', () => {
  it.each([
    ['ENOENT', 'FILE_NOT_FOUND', 'business', false],
    ['ENOTDIR', 'FILE_NOT_FOUND', 'business', false],
    ['EACCES', 'PERMISSION_DENIED', 'permission', false],
    ['EPERM', 'PERMISSION_DENIED', 'permission', false],
    ['EISDIR', 'IS_A_DIRECTORY', 'parameter', false],
    ['ELOOP', 'SECURITY_VIOLATION', 'parameter', false],
    ['ENAMETOOLONG', 'INVALID_PATH', 'parameter', false],
    ['ENOSPC', 'IO_ERROR', 'business', false],
    ['EROFS', 'IO_ERROR', 'business', false],
    ['EIO', 'IO_ERROR', 'temporary', true],
    ['EMFILE', 'IO_ERROR', 'temporary', true],
    ['EBUSY', 'IO_ERROR', 'temporary', true],
  ])('maps %s to %s (%s, retryable %s)', (code, expected, kind, retryable) => {
    const error = fileError(errno(code), 'notes/a.txt');
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: expected, kind, retryable });
    expect(error.message).toContain('notes/a.txt');
    expect(error.cause).toBeDefined();
  });

  it('maps errors without a code to a retryable IO_ERROR', () => {
    expect(fileError(new Error('odd'), 'a')).toMatchObject({ code: 'IO_ERROR', retryable: true });
    expect(fileError('odd', 'a')).toMatchObject({ code: 'IO_ERROR' });
  });

  it('passes ToolErrors through unchanged', () => {
    const original = ToolError.parameter('SECURITY_VIOLATION', 'no');
    expect(fileError(original, 'a')).toBe(original);
  });

  it('passes through a ToolError made by another copy of the class (a second chunk of the build)', async () => {
    vi.resetModules();
    const copy = (await import('../executor/errors')) as typeof import('../executor/errors');
    expect(copy.ToolError).not.toBe(ToolError);
    const original = copy.ToolError.parameter('SECURITY_VIOLATION', 'no');
    expect(original).not.toBeInstanceOf(ToolError);
    expect(fileError(original, 'a')).toBe(original);
    // A plain Error merely named so, without the shape, is still mapped.
    const impostor = Object.assign(new Error('odd'), { name: 'ToolError' });
    expect(fileError(impostor, 'a')).toMatchObject({ code: 'IO_ERROR' });
  });

  it('never puts anything but the shown path in the message', () => {
    const error = fileError(Object.assign(new Error('ENOENT: /srv/real/ws/a'), { code: 'ENOENT' }), 'a');
    expect(error.message).not.toContain('/srv/real');
  });

  it('builds FILE_NOT_FOUND with a hint to list the folder', () => {
    expect(fileNotFound('x.txt')).toMatchObject({
      code: 'FILE_NOT_FOUND',
      kind: 'business',
      hint: expect.stringMatching(/"\."/),
    });
  });
});
