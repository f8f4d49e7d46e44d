import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { meterCpu, processTreeCpuSeconds, processTreeRssBytes } from './process-usage';

describe.runIf(process.platform === 'linux')('processTreeCpuSeconds', () => {
  it("counts a running child's CPU into its parent's tree", async () => {
    // The child burns 300 ms of CPU, says so, and waits (idle) to be killed: no wall-clock timing.
    const burn = 'while (process.cpuUsage().user < 300000); process.stdout.write("done"); setInterval(() => {}, 1000);';
    const before = processTreeCpuSeconds(process.pid) ?? 0;
    const child = spawn(process.execPath, ['-e', burn]);
    await new Promise((resolve) => child.stdout.once('data', resolve));
    const after = processTreeCpuSeconds(process.pid) ?? 0;
    child.kill();
    expect(after - before).toBeGreaterThanOrEqual(0.3);
  });

  it('meters a share of one core', () => {
    const meter = meterCpu(process.pid);
    const percent = meter.stop();
    expect(percent === null || percent >= 0).toBe(true);
  });

  it('is null for a process that does not exist', () => {
    expect(processTreeCpuSeconds(2 ** 30)).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('processTreeRssBytes', () => {
  it("is at least this process's own heap", () => {
    expect(processTreeRssBytes(process.pid)).toBeGreaterThan(process.memoryUsage().heapUsed);
  });
});
