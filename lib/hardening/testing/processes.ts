import fs from 'node:fs';
import { crowding } from './machine-pace';

/**
 * The live processes (zombies left out: they are dead, waiting for their parent) whose command
 * line contains `marker`, read from /proc: works across pid namespaces, where the pids a
 * sandboxed program prints are not ours.
 */
export function processesWith(marker: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!cmdline.includes(marker)) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      found.push({ pid: Number(entry), cmdline: cmdline.trim() });
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** A unique `sleep` duration: its command line is the marker (`sleep 3000.123456`), and it outlives any test. */
export function sleepMarker(): string {
  return `3000.${Math.floor(Math.random() * 1e6)
    .toString()
    .padStart(6, '0')}${process.pid % 1000}`;
}

/** The most `waitUntil` stretches a bound to: under vitest's 60 s time limit of a test. */
const MAX_STRETCHED_MS = 45_000;

/**
 * Polls `check` every 10 ms until it is true, or throws after `timeoutMs` stretched by the
 * machine's crowding (`crowding()`, machine-pace.ts): `timeoutMs` is what the wait may take on the
 * reference machine at rest, so a bound like "gone within 100 ms" holds on a busy machine too.
 * Stretched to 45 s at most (never below `timeoutMs`): it throws, with its message, before the
 * test's own time limit (60 s) would.
 */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const limitMs = Math.max(timeoutMs, Math.min(timeoutMs * crowding(), MAX_STRETCHED_MS));
  const deadline = performance.now() + limitMs;
  while (!(await check())) {
    if (performance.now() > deadline) {
      throw new Error(
        `waitUntil: not true after ${Math.round(limitMs)} ms (${timeoutMs} ms stretched by the crowding)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
