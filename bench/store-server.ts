/**
 * The built server on the store at scale: the resident memory of its process tree at rest and
 * after a few seconds of page loads and searches over HTTP.
 *
 * The server is started as `npm start` starts it (`startApp`, `scripts/start.mjs`) on a copy of
 * the seeded folder, never on the folder itself: starting marks the calls a previous process left
 * running as interrupted (the seeded folder's newest 20), and the data is older than the default
 * retention (30 days), which would delete it; the copy's config turns retention off as well. The
 * copy is made once and reused while its `seed.json` equals the seeded folder's.
 * 1. copy (or reuse) the folder; start the server on it;
 * 2. load the traces list once (its first page), then read its RSS: at rest;
 * 3. for `seconds`, `clients` loops request the list, the filtered lists, a trace, a session, the
 *    sessions list, the tools page and the searches of `store-scale.ts`, each answer read whole;
 * 4. read its RSS again: after the load; stop it (SIGTERM).
 */
import fs from 'node:fs';
import path from 'node:path';
import { startApp } from './app-server';
import { processTreeRssBytes } from './process-usage';
import { searchQueries } from './store-scale';
import { cachedSeed, seedCall } from './store-seed';

export interface StoreServerFigures {
  /** RSS of the server's process tree after it answered and served its first page (the traces list). */
  rssAtRestBytes: number | null;
  /** RSS of the same tree right after the load. */
  rssAfterLoadBytes: number | null;
  /** The load: how long, how many clients at once, the answers 200 read whole and the others. */
  seconds: number;
  clients: number;
  requests: number;
  errors: number;
  /** The paths requested in turn. */
  paths: string[];
  firstError?: string;
}

const FILES = ['toolscope.db', 'toolscope.db-wal', 'vault.key'] as const;

/**
 * `target` as a copy of the seeded folder `source` (its database, WAL if any, vault key), made
 * unless `target/seed.json` already equals `source/seed.json`; the marker is written last, so a
 * copy cut short is made again. Returns whether it copied.
 */
export function servedCopy(source: string, target: string, progress: (text: string) => void = () => {}): boolean {
  const marker = fs.readFileSync(path.join(source, 'seed.json'), 'utf8');
  const targetMarker = path.join(target, 'seed.json');
  if (fs.existsSync(targetMarker) && fs.readFileSync(targetMarker, 'utf8') === marker) return false;
  fs.rmSync(targetMarker, { force: true });
  fs.mkdirSync(target, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(target, `toolscope.db${suffix}`), { force: true });
  for (const file of FILES) {
    const from = path.join(source, file);
    if (!fs.existsSync(from)) continue;
    progress(`copying ${from} (${(fs.statSync(from).size / 2 ** 20).toFixed(0)} MB) to ${target}`);
    fs.copyFileSync(from, path.join(target, file));
  }
  fs.writeFileSync(targetMarker, marker);
  return true;
}

/** The pages and searches requested in turn: what `measureStoreAtScale` times, as URLs. */
export function storePaths(calls: number): string[] {
  const middle = seedCall(Math.floor(calls / 2), calls);
  const oldest = seedCall(0, calls);
  const session = encodeURIComponent(middle.sessionId ?? '');
  const hour = 3_600_000;
  return [
    '/',
    '/?tool=write_file',
    '/?status=failed',
    '/?status=running',
    `/?session=${session}`,
    `/?from=${middle.createdAt}&to=${middle.createdAt + hour}`,
    `/?tool=read_file&from=${oldest.createdAt}&to=${oldest.createdAt + hour}`,
    `/traces/${middle.id}`,
    `/sessions/${session}`,
    '/sessions',
    '/tools',
    '/tools?range=week',
    ...searchQueries(calls).map((query) => `/?q=${encodeURIComponent(query)}`),
  ];
}

/**
 * Requests `paths` in turn from `clients` loops for `seconds`, reading every answer whole; every
 * path is requested at least once however slow the machine (the clients share the list).
 */
async function loadPages(origin: string, paths: string[], seconds: number, clients: number) {
  let requests = 0;
  let errors = 0;
  let firstError: string | undefined;
  const until = performance.now() + seconds * 1000;
  // Each client's share of one full pass: it goes on past `until` until it has made that many.
  const share = Math.ceil(paths.length / clients);
  const client = async (offset: number) => {
    for (let i = offset, made = 0; performance.now() < until || made < share; i++, made++) {
      const requestPath = paths[i % paths.length] as string;
      try {
        const response = await fetch(`${origin}${requestPath}`);
        const body = await response.text();
        if (response.status === 200) requests++;
        else {
          errors++;
          firstError ??= `${requestPath}: status ${response.status}: ${body.slice(0, 200)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= `${requestPath}: ${String(error)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, i) => client(Math.floor((i * paths.length) / clients))));
  return { requests, errors, ...(firstError === undefined ? {} : { firstError }) };
}

/**
 * Starts the built server on a copy of the folder of `calls` seeded calls and reads its RSS at
 * rest and after `seconds` of page loads. The folder must be seeded already (it is never seeded
 * here); the app must be built (`node scripts/build.mjs`).
 * @example const figures = await measureStoreServer({ calls: 10_000_000, progress: console.error })
 */
export async function measureStoreServer(options: {
  calls: number;
  progress: (text: string) => void;
  /** The repository (where `scripts/start.mjs` is); the working directory by default. */
  root?: string;
  /** Where the copy goes: TOOLSCOPE_BENCH_SERVED_DIR, or `bench/tmp/store-<calls>-served`. */
  servedDir?: string;
  seconds?: number;
  clients?: number;
}): Promise<StoreServerFigures> {
  const { calls, progress, seconds = 10, clients = 4 } = options;
  const root = options.root ?? process.cwd();
  const seeded = cachedSeed(calls);
  if (!seeded)
    throw new Error(`no seeded folder of ${calls} calls for the current schema; run measureStoreAtScale first`);
  const servedDir = path.resolve(
    options.servedDir ??
      process.env.TOOLSCOPE_BENCH_SERVED_DIR ??
      path.join(root, 'bench', 'tmp', `store-${calls}-served`),
  );
  if (servedDir === path.resolve(seeded.dir)) throw new Error('the served copy must not be the seeded folder itself');
  if (servedCopy(seeded.dir, servedDir, progress)) progress(`copied ${seeded.dir} to ${servedDir}`);
  const logFile = path.join(root, 'bench', 'tmp', 'store-server.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, '');
  progress(`starting the app on ${servedDir} (log in ${path.relative(root, logFile)})`);
  const app = await startApp({
    root,
    dataDir: servedDir,
    logFile,
    config: { retention: { maxAgeDays: null, maxCalls: null } },
  });
  try {
    const paths = storePaths(calls);
    const first = await fetch(`${app.origin}/`);
    await first.text();
    if (first.status !== 200) throw new Error(`the traces list answered ${first.status}; see ${logFile}`);
    const rssAtRestBytes = processTreeRssBytes(app.pid);
    progress(`app pid ${app.pid}: ${clients} clients on ${paths.length} pages and searches for ${seconds} s`);
    const load = await loadPages(app.origin, paths, seconds, clients);
    const rssAfterLoadBytes = processTreeRssBytes(app.pid);
    return { rssAtRestBytes, rssAfterLoadBytes, seconds, clients, paths, ...load };
  } finally {
    progress(`stopping the app (SIGTERM to pid ${app.pid})`);
    const stopped = await app.stop();
    if (stopped.killed) progress('the app did not stop within 20 s and was killed');
  }
}
