import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FullConfig } from '@playwright/test';
import { startAppServer } from './app-server';

/**
 * Starts the built app (`npm start`'s script) on the test port with a fresh data folder and the
 * e2e config (run_shell allowed for `sh`, see app-server.ts), and returns the teardown that stops
 * it by its process group id.
 */
export default async function globalSetup(config: FullConfig) {
  const baseURL = config.projects[0]?.use.baseURL ?? 'http://127.0.0.1:3197';
  const { port } = new URL(baseURL);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-e2e-'));
  process.env.E2E_DATA_DIR = dataDir;
  const server = await startAppServer({ port, dataDir });
  return async () => {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
