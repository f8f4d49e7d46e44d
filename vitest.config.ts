import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': fileURLToPath(new URL('.', import.meta.url)) } },
  test: {
    include: [
      'lib/**/*.test.ts',
      'bench/**/*.test.ts',
      'app/**/*.test.ts',
      'components/**/*.test.ts',
      'scripts/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    environment: 'node',
    pool: 'forks',
    // A test's time limit catches a hang, not a slow machine: on a crowded 2-core machine (npm test
    // beside other work) a test of a few seconds can take several times as long.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for something that must happen; its limit (1 s unless given) catches a
    // hang too, not a slow machine.
    expect: { poll: { timeout: 10_000 } },
  },
});
