import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../executor/clock';
import { isToolError, type ToolError } from '../executor/errors';
import type { ToolContext } from '../executor/types';

/** A ToolContext as the executor would hand it to a tool, for calling `execute` in tests. */
export function createTestContext(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    traceId: 'trace_test',
    toolCallId: 'call_test',
    sessionId: null,
    actor: 'test',
    signal: new AbortController().signal,
    attempt: 1,
    clock: systemClock,
    metadata: {},
    output: { write: () => {} },
    ...overrides,
  };
}

/** Creates a fresh temporary folder; `remove` deletes it and everything in it. */
export async function createTempDir(
  prefix = 'toolscope-tools-',
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs `work` expecting a ToolError (thrown or rejected); returns it for checks on code and kind. */
export async function expectToolError(work: Promise<unknown> | (() => unknown)): Promise<ToolError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    if (isToolError(error)) return error;
    throw new Error(`Expected a ToolError, got: ${String(error)}`, { cause: error });
  }
  throw new Error('Expected a ToolError, but the call succeeded');
}
