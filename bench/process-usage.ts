import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on

function ownSeconds(pid: number): number {
  // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    const list = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
    if (list) children.push(...list.split(' ').map(Number));
  }
  return children;
}

/** Resident memory of a process and its running descendants in bytes, from /proc; null where there is none. */
export function processTreeRssBytes(pid: number): number | null {
  try {
    let total = 0;
    const pending = [pid];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const rss = fs.readFileSync(`/proc/${next}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m)?.[1];
      total += Number(rss ?? 0) * 1024;
      pending.push(...childrenOf(next));
    }
    return total;
  } catch {
    return null;
  }
}

/**
 * CPU seconds (user + system) used so far by a process and its descendants that are still
 * running, read from /proc; null where there is no /proc (the table then shows "–").
 */
export function processTreeCpuSeconds(pid: number): number | null {
  try {
    let total = 0;
    const pending = [pid];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      total += ownSeconds(next);
      pending.push(...childrenOf(next));
    }
    return total;
  } catch {
    return null;
  }
}

/** Starts a CPU meter on a process tree; `stop()` gives the share of one core it used meanwhile, in %. */
export function meterCpu(pid: number) {
  const startCpu = processTreeCpuSeconds(pid);
  const startWall = performance.now();
  return {
    stop(): number | null {
      const endCpu = processTreeCpuSeconds(pid);
      if (startCpu === null || endCpu === null) return null;
      return ((endCpu - startCpu) / ((performance.now() - startWall) / 1000)) * 100;
    },
  };
}
