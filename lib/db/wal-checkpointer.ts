import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface WalCheckpointer {
  /** Stops the thread; resolves once it has closed its connection. */
  stop(): Promise<void>;
}

/** How often the thread checkpoints: the WAL it leaves between two stays a few MB under load. */
export const CHECKPOINT_INTERVAL_MS = 250;

/** The thread: its own connection, a PASSIVE checkpoint every interval, closed when told. */
const SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const requireFrom = createRequire(require('node:path').join(workerData.resolvePaths[0], 'worker.js'));
const Database = requireFrom(requireFrom.resolve('better-sqlite3', { paths: workerData.resolvePaths }));
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
let failed = false;
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    failed = false;
  } catch (error) {
    // Logged once per run of failures; the writer's own autocheckpoint is still there.
    if (!failed) console.error('[toolscope] WAL checkpoint failed:', error.message);
    failed = true;
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  process.exit(0);
});
`;

/**
 * Checkpoints the WAL of the database at `filename` from a thread of its own, off the event loop.
 * A checkpoint copies the WAL into the database file and waits for the disk (fsync); run by the
 * writer's autocheckpoint it stalled every request of that turn for tens of milliseconds, the
 * largest share of the agent path's p99. PASSIVE never blocks the writer nor waits for readers;
 * once a checkpoint has copied every frame, the writer's next commit starts the WAL over. The
 * writer keeps its autocheckpoint (see `openDatabase`) as the backstop should this thread stop.
 * @example const checkpointer = startWalCheckpointer(config.dbPath); await checkpointer.stop();
 */
export function startWalCheckpointer(
  filename: string,
  options: { intervalMs?: number; resolvePaths?: string[] } = {},
): WalCheckpointer {
  const worker = new Worker(SOURCE, {
    eval: true,
    workerData: {
      filename: path.resolve(filename),
      intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS,
      resolvePaths: options.resolvePaths ?? packageFolders(),
    },
  });
  // It never holds the process open, and a failure to start it only loses the offloading.
  worker.unref();
  worker.on('error', (error) => console.error('[toolscope] the WAL checkpoint thread failed:', error.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop() {
      worker.postMessage('stop');
      return exited;
    },
  };
}

/** Where `better-sqlite3` is found: the working directory and the folder of the script Node started. */
function packageFolders(): string[] {
  const entry = process.argv[1];
  return entry ? [process.cwd(), path.dirname(entry)] : [process.cwd()];
}
