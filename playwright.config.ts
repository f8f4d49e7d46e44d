import { defineConfig } from '@playwright/test';

const port = Number(process.env.E2E_PORT || 3197);

/**
 * e2e tests against the built app, started by global setup on its own port and data folder. Specs
 * that change what every test of a server sees start their own (`testWithOwnServer`). Screenshots
 * are not tests: `npm run screens` takes them (playwright.screens.config.ts, e2e/screens/).
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  testIgnore: 'screens/**',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  // A test's time limit catches a hang, not a slow machine: under load (npm test beside other
  // work) a test of 15 s on a quiet machine can take several times as long.
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: '.test-reports/e2e.json' }]],
  outputDir: 'test-results',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
