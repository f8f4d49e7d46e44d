import path from 'node:path';
import { defineConfig } from '@playwright/test';
import base from './playwright.config';

// Where the screenshots go: SCREENS_DIR, else test-results/screens. Set here, so workers inherit it.
process.env.SCREENS_DIR = path.resolve(process.env.SCREENS_DIR || 'test-results/screens');

/**
 * `npm run screens`: takes the screenshots of every screen (light and dark, desktop and phone) into
 * SCREENS_DIR, against the built app started as for the e2e tests. These assert only what they need
 * to reach a screen; `npm test` does not run them.
 */
export default defineConfig({
  ...base,
  testDir: 'e2e/screens',
  testMatch: '**/*.screens.ts',
  testIgnore: [],
  workers: 1,
  timeout: 180_000,
  reporter: [['list']],
  outputDir: 'test-results/screens-run',
});
