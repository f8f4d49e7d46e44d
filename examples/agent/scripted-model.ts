import fs from 'node:fs';
import type { AssistantToolCall, AssistantTurn, ChatModel } from './chat-model';

/**
 * A transcript for `--scripted`: the model's turns, in order, as a chat-completions model answers
 * them. `expect` says how the turn's calls are to come out (`ok` or `error`, by tool call id): the
 * next turn was written for those outcomes, so a run that differs stops instead of going on.
 */
export interface Transcript {
  format: 'toolscope-agent-transcript';
  version: 1;
  description?: string;
  /** Sent as `assistant_message.model`. */
  model: string;
  /** The user's request that starts the run. */
  task: string;
  system?: string;
  turns: (AssistantTurn & { expect?: Record<string, 'ok' | 'error'> })[];
}

/** Reads and checks a transcript file; a bad one throws naming what is wrong. */
export function readTranscript(file: string): Transcript {
  const transcript = JSON.parse(fs.readFileSync(file, 'utf8')) as Transcript;
  const where = (what: string) => new Error(`${file}: ${what}`);
  if (transcript.format !== 'toolscope-agent-transcript' || transcript.version !== 1) {
    throw where('not a version 1 toolscope-agent-transcript');
  }
  if (typeof transcript.task !== 'string' || !Array.isArray(transcript.turns) || transcript.turns.length === 0) {
    throw where('needs a task and at least one turn');
  }
  transcript.turns.forEach((turn, i) => {
    for (const call of turn.tool_calls ?? []) {
      if (typeof call.id !== 'string' || typeof call.function?.name !== 'string') {
        throw where(`turns.${i}.tool_calls: each call needs an id and function.name`);
      }
    }
  });
  return transcript;
}

/** Plays a transcript's turns in order instead of asking a model; offline and deterministic. */
export function createScriptedModel(transcript: Transcript): ChatModel {
  let next = 0;
  return {
    name: transcript.model,
    async complete({ previous }) {
      const expected = next > 0 ? transcript.turns[next - 1]?.expect : undefined;
      for (const result of previous) {
        const want = expected?.[result.tool_call_id];
        const got = result.success ? 'ok' : 'error';
        if (want && want !== got) {
          throw new Error(
            `the run left the transcript: ${result.tool_call_id} (${result.tool}) was to end ${want}, it ended ${result.status}` +
              (result.error ? ` (${result.error.code}: ${result.error.message})` : ''),
          );
        }
      }
      const turn = transcript.turns[next++];
      if (!turn) throw new Error(`the transcript has no turn ${next}: its last turn still called tools`);
      const calls: AssistantToolCall[] | undefined = turn.tool_calls?.map((call) => ({
        ...call,
        type: 'function',
        function: { name: call.function.name, arguments: argumentsText(call.function.arguments) },
      }));
      return { role: 'assistant', content: turn.content ?? null, ...(calls?.length ? { tool_calls: calls } : {}) };
    },
  };
}

/** Arguments as a model sends them: a JSON string (a transcript may write them as an object). */
const argumentsText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? {}));
