/**
 * For the data-lock tests, in a process of its own: `hold-data-lock.ts <dir> <lock|toolscope> [startAtMs]`.
 * Takes the data folder's lock (alone, or through createToolscope), waiting until `startAtMs` if
 * given so that several of these try at the same moment. Prints `held <pid>` and stays until
 * killed (SIGTERM releases first), or prints `refused <message>` and exits with 3.
 */
import { loadConfig } from '../../config';
import { createToolscope } from '../create-toolscope';
import { acquireDataFolderLock, isDataFolderLockedError } from '../data-lock';

const [dir, mode, startAt] = process.argv.slice(2) as [string, string, string | undefined];
if (startAt) while (Date.now() < Number(startAt)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
try {
  const release =
    mode === 'toolscope'
      ? (() => {
          const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
          return () => ts.close();
        })()
      : (() => {
          const lock = acquireDataFolderLock(dir);
          return () => lock.release();
        })();
  // Before saying so: the test may signal as soon as it reads the line.
  process.on('SIGTERM', () => {
    release();
    process.exit(0);
  });
  setInterval(() => {}, 60_000);
  process.stdout.write(`held ${process.pid}\n`);
} catch (error) {
  if (!isDataFolderLockedError(error)) throw error;
  process.stdout.write(`refused ${error.message}\n`);
  process.exit(3);
}
