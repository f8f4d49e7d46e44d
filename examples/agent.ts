/**
 * An agent whose tools run through Toolscope: a real loop against any OpenAI-compatible
 * chat-completions endpoint, or a recorded transcript played offline (`--scripted`).
 *
 *   npx tsx examples/agent.ts "What is 17 * 23? Save it to notes/n.md"        (OPENAI_API_KEY set)
 *   npx tsx examples/agent.ts --scripted examples/transcripts/parallel-fix-approve.json
 *
 * Each run is one Toolscope session; its URL is printed first. See the README, "Use it from your agent".
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createToolscopeClient, isToolscopeError } from '../lib/client';
import { type ChatModel, createChatCompletionsModel } from './agent/chat-model';
import { runAgent } from './agent/run-agent';
import { createScriptedModel, readTranscript } from './agent/scripted-model';

const USAGE = `Usage: npx tsx examples/agent.ts [options] [task]

Options:
  --toolscope <url>       Toolscope's address (default: TOOLSCOPE_URL or http://127.0.0.1:3000)
  --model <name>          the model to ask (default: OPENAI_MODEL or gpt-4o-mini)
  --max-iterations <n>    model turns at most (default: 8)
  --session <id>          the session id (default: agent-<time>-<random>)
  --scripted <file>       play this transcript instead of calling a model (offline)
  -h, --help

Environment: OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_API_KEY,
TOOLSCOPE_TOKEN (when Toolscope asks for one).
Exit status: 0 answered, 1 failed, 2 bad usage, 3 stopped at --max-iterations.`;

function usage(problem: string): never {
  console.error(`${problem}\n\n${USAGE}`);
  process.exit(2);
}

function options() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        toolscope: { type: 'string' },
        model: { type: 'string' },
        'max-iterations': { type: 'string' },
        session: { type: 'string' },
        scripted: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return usage((error as Error).message);
  }
}

async function main(): Promise<number> {
  const { values, positionals } = options();
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const maxIterations = Number(values['max-iterations'] ?? 8);
  if (!Number.isInteger(maxIterations) || maxIterations < 1) usage('--max-iterations: a whole number, at least 1');

  let model: ChatModel;
  let task = positionals.join(' ');
  let system: string | undefined;
  if (values.scripted) {
    const transcript = readTranscript(values.scripted);
    model = createScriptedModel(transcript);
    task ||= transcript.task;
    system = transcript.system;
  } else {
    if (!task) usage('Say what the agent is to do (or play a transcript with --scripted).');
    const baseUrl = process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1';
    const apiKey = process.env.OPENAI_API_KEY;
    if (!apiKey && baseUrl.includes('api.openai.com')) usage('OPENAI_API_KEY is not set.');
    model = createChatCompletionsModel({
      baseUrl,
      apiKey,
      model: values.model || process.env.OPENAI_MODEL || 'gpt-4o-mini',
    });
  }

  const toolscope = createToolscopeClient({
    baseUrl: values.toolscope || process.env.TOOLSCOPE_URL || 'http://127.0.0.1:3000',
    token: process.env.TOOLSCOPE_TOKEN,
  });
  const sessionId =
    values.session ||
    `agent-${new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '')}-${randomBytes(3).toString('hex')}`;
  console.log(`session ${sessionId}: ${toolscope.baseUrl}/sessions/${encodeURIComponent(sessionId)}`);
  console.log(`task: ${task}`);

  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  const outcome = await runAgent({
    model,
    toolscope,
    sessionId,
    task,
    system,
    maxIterations,
    log: (line) => console.log(line),
    signal: stop.signal,
  });
  console.log(`done: ${outcome.calls} tool calls in ${outcome.iterations} turns`);
  return outcome.answer === null ? 3 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const detail = isToolscopeError(error)
      ? `Toolscope: ${error.code} (HTTP ${error.status}) ${error.message}`
      : String(error instanceof Error ? error.message : error);
    console.error(`agent failed: ${detail}`);
    process.exit(1);
  },
);
