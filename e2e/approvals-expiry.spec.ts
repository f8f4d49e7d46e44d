import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import { testWithOwnServer } from './app-server';
import { unique } from './pages/api';
import { pendingWrite } from './pages/approvals-page';
import { TracePage } from './pages/trace-page';

// Approvals expire after 8 s on this file's own server: the shared e2e server gives a person two
// minutes, so that no other test races an expiry on a loaded machine.
const configFile = path.join(os.tmpdir(), `toolscope-e2e-expiry-${process.pid}.json`);
fs.writeFileSync(configFile, JSON.stringify({ approvals: { timeoutMs: 8_000 } }));
const test = testWithOwnServer('toolscope-e2e-expiry-', { env: { TOOLSCOPE_CONFIG: configFile } });

test.afterAll(() => {
  fs.rmSync(configFile, { force: true });
});

test('a call no one answers expires with APPROVAL_TIMEOUT, its permission stage waiting until then', async ({
  page,
  request,
}) => {
  const traceId = await pendingWrite(request, `notes/${unique('expired')}.txt`, 'too late');
  const trace = new TracePage(page);
  await trace.goto(traceId);
  // Waiting, or (a page that took 8 s to load) already expired: either way it ends as below.
  await expect(trace.status).toHaveAttribute('data-status', /awaiting_approval|denied/);
  await expect(page.getByTestId('approval-panel')).toHaveAttribute('data-decision', /pending|expired/);

  await expect(page.getByTestId('error-code')).toHaveText('APPROVAL_TIMEOUT', { timeout: 40_000 });
  await expect(trace.status).toHaveAttribute('data-status', 'denied');
  await expect(page.getByTestId('approval-panel')).toHaveAttribute('data-decision', 'expired');
});
