/**
 * A closed-loop HTTP load generator, run as a child process (`fork`) so that it never shares an
 * event loop with the server it measures. `connections` clients, each on its own keep-alive
 * socket, send one request, wait for the whole answer, then send the next. After a warm-up it
 * makes `runs` runs of `seconds` each and sends their figures to the parent over IPC.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { isMain } from './child';
import { percentile } from './percentile';

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  /** Sent with every request; each `{n}` in it becomes a text of its own per request (a fresh tool call id). */
  body?: string;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  runs: number;
  /** The status of a good answer (200, or 404 for the not-found route). */
  expectStatus: number;
  /** A good answer's body contains this text (e.g. `"success":true`). */
  expectBody?: string;
}

/** One run's figures; latencies are from the request's first byte sent to the answer's last byte received. */
export interface RunFigures {
  seconds: number;
  /** Good answers. */
  ok: number;
  /** Socket errors, timeouts, a wrong status or a body without the expected text. */
  errors: number;
  /** Good answers per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LoadReport {
  warmup: RunFigures;
  runs: RunFigures[];
  /** Good answers over the warm-up and every run: what the server must have persisted. */
  answered: number;
  /** Share of one core this process used from the warm-up's start to the last run's end, in %. */
  cpuPercent: number;
  firstError?: string;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** Runs the warm-up and the runs against one URL; the sockets stay open from one run to the next. */
export async function generateLoad(options: LoadOptions): Promise<LoadReport> {
  const url = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const parts = options.body?.split('{n}').map((part) => Buffer.from(part));
  let sent = 0;
  /** The next request's body: the parts joined by a number no request had before. */
  const nextBody = (): Buffer | undefined => {
    if (parts === undefined || parts.length === 1) return parts?.[0];
    sent += 1;
    // With the pid: a later generator against the same server never repeats an earlier one's.
    const n = Buffer.from(`${process.pid}-${sent}`);
    return Buffer.concat(parts.flatMap((part, i) => (i === 0 ? [part] : [n, part])));
  };
  let firstError: string | undefined;

  const send = (latencies: number[]) =>
    new Promise<boolean>((resolve) => {
      const body = nextBody();
      const headers: http.OutgoingHttpHeaders = body
        ? { 'content-type': 'application/json', 'content-length': body.length }
        : {};
      const start = performance.now();
      const settle = (good: boolean, why?: string) => {
        if (!good && firstError === undefined) firstError = why;
        latencies.push(performance.now() - start);
        resolve(good);
      };
      const request = http.request(
        { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method, headers },
        (response) => {
          const chunks: Buffer[] = [];
          if (options.expectBody !== undefined) response.on('data', (chunk: Buffer) => chunks.push(chunk));
          else response.resume();
          response.on('error', (error) => settle(false, error.message));
          response.on('end', () => {
            if (response.statusCode !== options.expectStatus) {
              return settle(false, `status ${response.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 200)}`);
            }
            if (options.expectBody !== undefined && !Buffer.concat(chunks).includes(options.expectBody)) {
              return settle(false, `unexpected body: ${Buffer.concat(chunks).toString().slice(0, 200)}`);
            }
            settle(true);
          });
        },
      );
      request.setTimeout(REQUEST_TIMEOUT_MS, () => request.destroy(new Error('request timed out')));
      request.on('error', (error) => settle(false, error.message));
      request.end(body);
    });

  const run = async (seconds: number): Promise<RunFigures> => {
    const latencies: number[] = [];
    let ok = 0;
    let errors = 0;
    const start = performance.now();
    const deadline = start + seconds * 1000;
    const client = async () => {
      while (performance.now() < deadline) {
        if (await send(latencies)) ok++;
        else errors++;
      }
    };
    await Promise.all(Array.from({ length: options.connections }, client));
    const elapsed = (performance.now() - start) / 1000;
    const sorted = Float64Array.from(latencies).sort();
    return {
      seconds: elapsed,
      ok,
      errors,
      rps: ok / elapsed,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
    };
  };

  const cpuAtStart = process.cpuUsage();
  const wallAtStart = performance.now();
  const warmup = await run(options.warmupSeconds);
  const runs: RunFigures[] = [];
  for (let i = 0; i < options.runs; i++) runs.push(await run(options.seconds));
  const cpu = process.cpuUsage(cpuAtStart);
  const cpuPercent = ((cpu.user + cpu.system) / 1000 / (performance.now() - wallAtStart)) * 100;
  agent.destroy();
  const answered = warmup.ok + runs.reduce((sum, figures) => sum + figures.ok, 0);
  return { warmup, runs, answered, cpuPercent, firstError };
}

// As a child process: the options arrive as the first argument, the report leaves over IPC.
if (isMain(import.meta.url) && process.send && process.argv[2]) {
  generateLoad(JSON.parse(process.argv[2]) as LoadOptions).then(
    (report) => process.send?.({ type: 'report', report }, () => process.exit(0)),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
