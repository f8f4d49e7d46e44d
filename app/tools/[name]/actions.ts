'use server';

import { revalidatePath } from 'next/cache';
import { principalRef } from '@/lib/access/principal';
import { modelMessageContent } from '@/lib/executor/model-message';
import type { CallStatus, ToolErrorData } from '@/lib/executor/types';
import { getToolscope } from '@/lib/server/toolscope';
import { principalFor } from '../../_lib/principal';

/** What the playground shows after a run; a plain object (Next.js hides thrown messages). */
export type PlaygroundRun =
  | {
      ok: true;
      traceId: string;
      status: CallStatus;
      success: boolean;
      output: unknown;
      error: ToolErrorData | null;
      latencyMs: number;
      modelMessage: string;
    }
  | { ok: false; message: string };

/**
 * Runs one playground call through the real executor (actor `playground`) and refreshes the tool page.
 * @param input the arguments: an object (the form), or JSON text (the JSON editor), handed to the
 *   executor as a model's OpenAI arguments are, so malformed text fails at the parse stage.
 */
export async function runTool(name: string, input: unknown): Promise<PlaygroundRun> {
  if (typeof name !== 'string' || name.length > 256) return { ok: false, message: 'Invalid tool name.' };
  const allowed = await principalFor('calls.run');
  if (!allowed.ok) return allowed;
  const { executor } = getToolscope();
  if (!executor.registry.get(name)) return { ok: false, message: `There is no tool named "${name}".` };
  const args = typeof input === 'string' ? input : (input ?? {});
  // A call that needs approval goes to the queue; the playground answers at once with its trace.
  let pendingTrace: ((traceId: string) => void) | undefined;
  const pending = new Promise<string>((resolve) => {
    pendingTrace = resolve;
  });
  const running = executor.execute(
    { name, arguments: args },
    {
      actor: 'playground',
      principal: principalRef(allowed.principal),
      onAwaitingApproval: (traceId) => pendingTrace?.(traceId),
    },
  );
  const result = await Promise.race([running, pending]);
  revalidatePath(`/tools/${encodeURIComponent(name)}`);
  if (typeof result === 'string') {
    running.catch((error: unknown) => console.error('[toolscope] a playground call awaiting approval failed:', error));
    return {
      ok: true,
      traceId: result,
      status: 'awaiting_approval',
      success: false,
      output: null,
      error: null,
      latencyMs: 0,
      modelMessage: 'Not answered yet: the call is waiting for a person to approve it.',
    };
  }
  return {
    ok: true,
    traceId: result.traceId,
    status: result.status,
    success: result.success,
    output: result.output ?? null,
    error: result.error ?? null,
    latencyMs: result.latencyMs,
    modelMessage: modelMessageContent(result),
  };
}
