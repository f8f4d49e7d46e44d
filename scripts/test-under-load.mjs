// `node scripts/test-under-load.mjs`: `npm test` on a fresh clone, several times in a row, with
// CPU burners running beside it (issue 26: the suite passes on a busy machine).
//
// 1. Clones the repository (this checkout's HEAD, or SOURCE and --rev) into a new temp folder and
//    runs `npm ci` there once. Only committed work is tested: the clone has no uncommitted change.
// 2. Starts the burners (`node -e 'for(;;);'`, two unless --burners), which run until the end.
// 3. Runs `npm test` --runs times (3 unless told). Before each run the clone is put back as a
//    fresh clone after `npm ci` has it: every file git does not track is removed except
//    node_modules (so each run builds `.next` again, as the first does), and so are the caches
//    that tools keep in node_modules (vitest's, which orders the files by past durations).
// 4. Prints each run's passed/failed/skipped and duration, and a summary line; exits non-zero if
//    any run failed. The burners (and a run still going) are stopped by pid at the end, also on
//    an error or a signal.
//
// Usage: node scripts/test-under-load.mjs [--runs N] [--burners N] [--rev REV] [--keep] [--dry-run] [SOURCE]
//   SOURCE     a git repository (path or URL) to clone; default: the checkout holding this script
//   --rev      the commit to test; default: SOURCE's HEAD
//   --keep     keep the clone (it is removed otherwise; the runs' logs are always kept)
//   --dry-run  clone, start and stop the burners, say what would run; no `npm ci`, no tests
//   --runs 0   clone and `npm ci`, check the burners burn, run no test
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Playwright's port unless E2E_PORT says otherwise (playwright.config.ts). */
const DEFAULT_E2E_PORT = 3197;
/** How long a stopped run gets to end after SIGTERM before its process group is killed. */
const KILL_AFTER_MS = 5_000;
/** Where tools keep caches inside node_modules (a fresh `npm ci` has none). */
const MODULE_CACHES = ['node_modules/.vite', 'node_modules/.vitest', 'node_modules/.cache'];

function usage(message) {
  if (message) console.error(`test-under-load: ${message}`);
  console.error(
    'usage: node scripts/test-under-load.mjs [--runs N] [--burners N] [--rev REV] [--keep] [--dry-run] [SOURCE]',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const options = { runs: 3, burners: 2, rev: 'HEAD', keep: false, dryRun: false, source: null };
  const count = (flag, value) => {
    if (value === undefined || !/^\d+$/.test(value)) usage(`${flag} takes a whole number`);
    return Number(value);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--runs') options.runs = count(arg, argv[++i]);
    else if (arg === '--burners') options.burners = count(arg, argv[++i]);
    else if (arg === '--rev') options.rev = argv[++i] ?? usage('--rev takes a commit');
    else if (arg === '--keep') options.keep = true;
    else if (arg === '--dry-run') options.dryRun = true;
    else if (arg === '--help' || arg === '-h') usage();
    else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    else if (options.source === null) options.source = arg;
    else usage(`one SOURCE only (got ${options.source} and ${arg})`);
  }
  options.source ??= path.resolve(HERE, '..');
  return options;
}

const git = (cwd, args) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();

function say(line) {
  console.log(`[test-under-load] ${line}`);
}

function duration(ms) {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** Whether nothing listens on `port` on the loopback address. */
function portIsFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port the OS says is free now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The CPU time (user + system, in clock ticks) a process used so far, from /proc; null if gone or unknown. */
function cpuTicks(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

// What is running and must be stopped, whatever happens.
const burners = [];
let run = null;
/** Set by a signal: no further run starts. */
let stopping = false;

function stopBurners() {
  for (const burner of burners.splice(0)) {
    try {
      process.kill(burner.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Stops the run in progress: its process group (it was started as the group's leader), by pid. */
function stopRun(signal) {
  if (!run || run.exitCode !== null || run.signalCode !== null) return;
  try {
    process.kill(-run.pid, signal);
  } catch {
    // already gone
  }
}

process.on('exit', () => {
  stopRun('SIGKILL');
  stopBurners();
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    stopping = true;
    say(`${signal}: stopping the run and the burners`);
    stopBurners();
    stopRun('SIGTERM');
    setTimeout(() => process.exit(signal === 'SIGINT' ? 130 : 143), run ? KILL_AFTER_MS : 0);
  });
}

function startBurners(n) {
  for (let i = 0; i < n; i++) {
    const burner = spawn(process.execPath, ['-e', 'for(;;);'], { stdio: 'ignore' });
    burners.push(burner);
  }
  say(`started ${n} CPU burner(s) (node -e 'for(;;);'), pids ${burners.map((b) => b.pid).join(', ') || 'none'}`);
}

/** Checks that every burner uses about a core: its CPU time over a second. */
async function checkBurners() {
  if (burners.length === 0) return;
  const ticksPerSecond = 100; // USER_HZ on Linux
  await new Promise((resolve) => setTimeout(resolve, 500)); // past node's start
  const before = burners.map((b) => cpuTicks(b.pid));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const shares = burners.map((b, i) => {
    const after = cpuTicks(b.pid);
    return after === null || before[i] === null ? null : (after - before[i]) / ticksPerSecond;
  });
  say(`burners' CPU over 1 s: ${shares.map((s) => (s === null ? 'unknown' : `${Math.round(s * 100)}%`)).join(', ')}`);
}

/** Puts the clone back as `npm ci` left it: untracked and ignored files go, node_modules stays. */
function resetClone(dir) {
  const changed = git(dir, ['status', '--porcelain', '--untracked-files=no']);
  if (changed) {
    say(`the last run changed tracked files; restoring them:\n${changed}`);
    git(dir, ['checkout', '--quiet', '--', '.']);
  }
  git(dir, ['clean', '-xdfq', '-e', '/node_modules/']);
  for (const cache of MODULE_CACHES) fs.rmSync(path.join(dir, cache), { recursive: true, force: true });
}

/** Counts from the runners' JSON reports (`scripts/test.mjs` writes them), for a run that stopped before its summary. */
function countsFromReports(dir) {
  const read = (file) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, '.test-reports', file), 'utf8'));
    } catch {
      return null;
    }
  };
  const unit = read('vitest.json');
  const e2e = read('e2e.json')?.stats;
  if (!unit && !e2e) return null;
  return {
    passed: (unit?.numPassedTests ?? 0) + (e2e?.expected ?? 0) + (e2e?.flaky ?? 0),
    failed: (unit?.numFailedTests ?? 0) + (e2e?.unexpected ?? 0),
    skipped: (unit?.numPendingTests ?? 0) + (unit?.numTodoTests ?? 0) + (e2e?.skipped ?? 0),
  };
}

/** Runs `npm test` in `dir`, its output shown and written to `logFile`; its exit code and counts. */
function npmTest(dir, logFile, env) {
  return new Promise((resolve) => {
    const log = fs.createWriteStream(logFile);
    let tail = '';
    // Its own process group, so that a stop reaches every process it started.
    run = spawn('npm', ['test'], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk, out) => {
      out.write(chunk);
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-64 * 1024);
    };
    run.stdout.on('data', (chunk) => keep(chunk, process.stdout));
    run.stderr.on('data', (chunk) => keep(chunk, process.stderr));
    run.on('close', (code, signal) => {
      log.end();
      run = null;
      const match = /^toolscope: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(tail);
      const counts = match
        ? { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]) }
        : countsFromReports(dir);
      resolve({ code: code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1), counts });
    });
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const isLocal = fs.existsSync(options.source);
  const source = isLocal ? path.resolve(options.source) : options.source;
  let commit = options.rev;
  if (isLocal) {
    commit = git(source, ['rev-parse', '--verify', `${options.rev}^{commit}`]);
    // Read-only: no index refresh in the source checkout.
    const dirty = execFileSync('git', ['--no-optional-locks', '-C', source, 'status', '--porcelain'], {
      encoding: 'utf8',
    }).trim();
    if (dirty && options.rev === 'HEAD')
      say(`note: ${source} has uncommitted changes; the clone tests its HEAD (${commit.slice(0, 12)}) without them`);
  }

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-under-load-'));
  const dir = path.join(work, 'repo');
  say(`cloning ${source} at ${options.rev === 'HEAD' ? `HEAD (${commit.slice(0, 12)})` : options.rev} into ${dir}`);
  execFileSync('git', ['clone', '--quiet', '--no-checkout', source, dir], { stdio: 'inherit' });
  try {
    git(dir, ['cat-file', '-e', `${commit}^{commit}`]);
  } catch {
    // A commit on no branch of SOURCE: fetched by name.
    git(dir, ['fetch', '--quiet', source, commit]);
  }
  git(dir, ['checkout', '--quiet', '--detach', commit]);

  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  delete env.TOOLSCOPE_REQUIRE_BUILD; // `npm test` sets it itself, after building
  if (!env.E2E_PORT && !(await portIsFree(DEFAULT_E2E_PORT))) {
    env.E2E_PORT = String(await freePort());
    say(`port ${DEFAULT_E2E_PORT} is taken here; the e2e tests use ${env.E2E_PORT} (E2E_PORT)`);
  }

  const results = [];
  try {
    if (options.dryRun) {
      say(`dry run: would run npm ci, then npm test ${options.runs} time(s) beside ${options.burners} burner(s)`);
      startBurners(options.burners);
      await checkBurners();
      return 0;
    }
    say('npm ci');
    const ciStarted = Date.now();
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env, stdio: 'inherit' });
    say(`npm ci took ${duration(Date.now() - ciStarted)}`);

    startBurners(options.burners);
    await checkBurners();
    for (let i = 1; i <= options.runs && !stopping; i++) {
      resetClone(dir);
      say(
        `run ${i}/${options.runs}: npm test (load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores)`,
      );
      const started = Date.now();
      const { code, counts } = await npmTest(dir, path.join(work, `run-${i}.log`), env);
      const ms = Date.now() - started;
      const result = { run: i, ok: code === 0, code, counts, ms, load: os.loadavg()[0] };
      results.push(result);
      say(`run ${i}/${options.runs}: ${summarize(result)}`);
    }
  } finally {
    stopBurners();
    if (options.keep) say(`kept the clone: ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
    if (results.length > 0) say(`logs: ${work}/run-*.log`);
    else if (!options.keep) fs.rmSync(work, { recursive: true, force: true });
  }

  for (const result of results) say(`run ${result.run}: ${summarize(result)}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(
    `\ntest-under-load: ${results.length} run(s) of npm test beside ${options.burners} burner(s) at ${commit.slice(0, 12)}: ` +
      `${results.length - failed} passed, ${failed} failed`,
  );
  return failed === 0 ? 0 : 1;
}

function summarize({ ok, code, counts, ms, load }) {
  const tally = counts ? `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` : 'no counts';
  return `${ok ? 'ok' : `FAILED (exit ${code})`}: ${tally} in ${duration(ms)}; load average after ${load.toFixed(2)}`;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`[test-under-load] ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  },
);
