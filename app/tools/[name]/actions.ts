'use server';

import { revalidatePath } from 'next/cache';
import { modelMessageContent } from '@/lib/executor/model-message';
import type { CallStatus, ToolErrorData } from '@/lib/executor/types';
import { getToolscope } from '@/lib/server/toolscope';

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

/** Runs one playground call through the real executor (actor `playground`) and refreshes the tool page. */
export async function runTool(name: string, input: unknown): Promise<PlaygroundRun> {
  if (typeof name !== 'string' || name.length > 256) return { ok: false, message: 'Invalid tool name.' };
  const { executor } = getToolscope();
  if (!executor.registry.get(name)) return { ok: false, message: `There is no tool named "${name}".` };
  const result = await executor.execute({ name, arguments: input ?? {} }, { actor: 'playground' });
  revalidatePath(`/tools/${encodeURIComponent(name)}`);
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
