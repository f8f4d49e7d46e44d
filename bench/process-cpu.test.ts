import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { meterCpu, processTreeCpuSeconds } from './process-cpu';

describe.runIf(process.platform === 'linux')('processTreeCpuSeconds', () => {
  it("counts a busy child's CPU into its parent's tree", async () => {
    const child = spawn(process.execPath, ['-e', 'const end = Date.now() + 600; while (Date.now() < end);']);
    const meter = meterCpu(process.pid);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const percent = meter.stop();
    child.kill();
    expect(percent).toBeGreaterThan(30);
  });

  it('is null for a process that does not exist', () => {
    expect(processTreeCpuSeconds(2 ** 30)).toBeNull();
  });
});
