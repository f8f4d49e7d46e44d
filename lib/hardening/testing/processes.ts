import fs from 'node:fs';

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

/** Polls `check` every 10 ms until it is true, or throws after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waitUntil: not true after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
