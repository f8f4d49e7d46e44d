// A stand-in for the server in attacks-shell.test.ts: runs `sleep <marker>` through run_shell
// (argv: workspace, sandbox setting, marker, and "network" for shell.network) and waits, for the
// test to SIGKILL it.
import { detectShellSandbox, type SandboxSetting } from '../../tools/process-sandbox';
import { createRunShellTool } from '../../tools/run-shell';
import { createTestContext } from '../../tools/test-helpers';

const [workspace = '', setting = 'auto', marker = '', network = ''] = process.argv.slice(2);
const sandbox = detectShellSandbox({
  setting: setting as SandboxSetting,
  allowUnsandboxed: true,
  network: network === 'network',
});
const tool = createRunShellTool({ workspace, allow: ['sleep'], sandbox });
await tool.execute({ command: ['sleep', marker] }, createTestContext());
