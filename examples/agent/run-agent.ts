import type { ToolCallResult, ToolscopeClient } from '../../lib/client';
import type { ChatMessage, ChatModel } from './chat-model';

export interface AgentRun {
  model: ChatModel;
  toolscope: ToolscopeClient;
  /** One per run: every batch of the run is sent with it. */
  sessionId: string;
  task: string;
  system?: string;
  maxIterations: number;
  /** Where progress goes (the console, in the CLI). */
  log: (line: string) => void;
  signal?: AbortSignal;
}

export interface AgentOutcome {
  /** The model's final answer; null when it was still calling tools at the last iteration. */
  answer: string | null;
  iterations: number;
  calls: number;
}

const DEFAULT_SYSTEM =
  'You are a careful assistant. Use the tools when they help; call independent tools in parallel. ' +
  'When a tool fails, read its error and fix the call.';

/**
 * The agent loop, its tools executed through Toolscope:
 * 1. Fetches the tools in OpenAI's form from Toolscope and starts the conversation with the task.
 * 2. Asks the model for a turn; a turn without tool calls is the answer and ends the run.
 * 3. Sends the turn's calls as one batch (they run in parallel), with the session id and what the
 *    model said (`assistant_message`), without waiting for approvals (`wait: false`).
 * 4. A call that waits for a person is waited for (`waitForApproval`); its outcome is what the
 *    model then reads.
 * 5. Appends the tool messages in call order and goes back to 2, at most `maxIterations` turns.
 */
export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const { model, toolscope, sessionId, log, signal } = run;
  const tools = await toolscope.listTools({ format: 'openai' }, { signal });
  const messages: ChatMessage[] = [
    { role: 'system', content: run.system ?? DEFAULT_SYSTEM },
    { role: 'user', content: run.task },
  ];
  let previous: ToolCallResult[] = [];
  let calls = 0;
  for (let iteration = 1; iteration <= run.maxIterations; iteration++) {
    const turn = await model.complete({ messages, tools, previous, signal });
    messages.push(turn);
    if (turn.content) log(`model: ${turn.content}`);
    if (!turn.tool_calls?.length) return { answer: turn.content ?? '', iterations: iteration, calls };

    for (const call of turn.tool_calls) log(`  → ${call.function.name} ${call.function.arguments}`);
    const { results, messages: toolMessages } = await toolscope.runToolCalls(
      {
        session_id: sessionId,
        assistant_message: { text: turn.content, model: model.name },
        tool_calls: turn.tool_calls,
        wait: false,
      },
      { signal },
    );
    calls += results.length;
    // Calls that wait for a person are waited for together; the model reads the answers in call order.
    const answered = await Promise.all(
      results.map(async (result, i) => {
        if (result.status !== 'awaiting_approval') {
          log(`  ${outcomeLine(result.tool, result.status, result.latency_ms, result.error?.code)}`);
          return { result, message: toolMessages[i]! };
        }
        log(`  ⏸ ${result.tool} waits for approval: ${toolscope.baseUrl}/approvals`);
        const trace = await toolscope.waitForApproval(result.trace_id, { signal });
        const { success, output, error, latency_ms } = trace.result;
        log(`  ${outcomeLine(trace.tool, trace.status, latency_ms, error?.code)} (after approval)`);
        return {
          result: { ...result, status: trace.status, success, output, error, latency_ms },
          message: { role: 'tool' as const, tool_call_id: result.tool_call_id, content: trace.model_message ?? '' },
        };
      }),
    );
    for (const { message } of answered) messages.push(message);
    previous = answered.map(({ result }) => result);
  }
  log(`stopped after ${run.maxIterations} iterations without an answer`);
  return { answer: null, iterations: run.maxIterations, calls };
}

function outcomeLine(tool: string, status: string, latencyMs: number | null, code: string | undefined): string {
  const mark = status === 'succeeded' ? '✓' : '✗';
  return `${mark} ${tool} ${status}${code ? ` ${code}` : ''}${latencyMs === null ? '' : ` ${Math.round(latencyMs)} ms`}`;
}
