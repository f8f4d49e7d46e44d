import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTempDataDir, openTestDatabase } from '../db/test-database';
import { encodeTraceId } from '../db/trace-id';

const SCRIPT = path.join(import.meta.dirname, 'testing', 'serve-until-killed.ts');
const temp = createTempDataDir('toolscope-http-crash-');
afterAll(() => temp.remove());

function post(agent: http.Agent, port: number, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/v1/tool-calls',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function serveAndKill(dir: string, answers: number): Promise<Map<string, string>> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, dir], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) =>
    child.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
  );
  const exited = new Promise((resolve) => child.on('close', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const answered = new Map<string, string>();
  let killed = false;
  let n = 0;
  const client = async () => {
    while (!killed) {
      n += 1;
      const expression = n % 3 === 0 ? `${n} +` : `${n} * 2`;
      const body = JSON.stringify({
        tool_calls: [
          {
            id: `call_${n}`,
            type: 'function',
            function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
          },
        ],
      });
      let response: { status: number; text: string };
      try {
        response = await post(agent, port, body);
      } catch {
        return; // the server died: no answer
      }
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${response.text}`);
      for (const r of JSON.parse(response.text).results as { trace_id: string; status: string }[])
        answered.set(r.trace_id, r.status);
      if (!killed && answered.size >= answers && child.pid) {
        killed = true;
        process.kill(child.pid, 'SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 50 }, client));
  await exited;
  agent.destroy();
  return answered;
}

describe('a SIGKILL of the server while 50 clients send calls', () => {
  it('loses no answered call, across a restart', async () => {
    const answered = new Map<string, string>();
    for (let round = 0; round < 2; round++)
      for (const [id, s] of await serveAndKill(temp.dir, 1500)) answered.set(id, s);
    const db = openTestDatabase(temp.dir);
    const statusOf = db.prepare('SELECT status FROM tool_calls WHERE id = ?').pluck();
    const lost = [...answered].filter(([id, s]) => statusOf.get(encodeTraceId(id)) !== s);
    db.close();
    console.log(`answered ${answered.size}, lost ${lost.length}`);
    expect(new Set(answered.values())).toEqual(new Set(['succeeded', 'failed']));
    expect(lost).toEqual([]);
  }, 120_000);
});
