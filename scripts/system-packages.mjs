// Makes sure the Debian packages the tests need are installed: Chromium at /usr/bin/chromium for
// the e2e tests (never a browser of Playwright's own), bubblewrap (bwrap), the sandbox run_shell
// runs programs in, and slirp4netns, the sandbox's network with shell.network. As root they are
// installed with apt-get; otherwise the command to run is printed and the tests stop.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const BWRAP = '/usr/bin/bwrap';
export const SLIRP4NETNS = '/usr/bin/slirp4netns';

/** Installs the packages of the missing binaries, as root; otherwise stops with the command to run. */
function ensurePackages(wanted) {
  const missing = wanted.filter(({ binary }) => !fs.existsSync(binary));
  if (missing.length === 0) return;
  const names = missing.map(({ name }) => name);
  const what = missing.map(({ binary, why }) => `${binary} (${why})`).join(', ');
  if (process.getuid?.() !== 0) {
    console.error(
      `[toolscope] missing: ${what}. Install them, then run npm test again:\n` +
        `  sudo apt-get update && sudo apt-get install -y ${names.join(' ')}`,
    );
    process.exit(1);
  }
  console.log(`[toolscope] installing ${names.join(', ')}: apt-get update && apt-get install -y ${names.join(' ')}`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...names]]) {
    const result = spawnSync('apt-get', args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (result.status !== 0) {
      console.error(`[toolscope] apt-get ${args.join(' ')} failed`);
      process.exit(1);
    }
  }
}

export function ensureSystemPackages() {
  ensurePackages([
    { binary: CHROMIUM, name: 'chromium', why: 'the e2e tests' },
    { binary: BWRAP, name: 'bubblewrap', why: "run_shell's sandbox" },
    { binary: SLIRP4NETNS, name: 'slirp4netns', why: "the sandbox's network (shell.network)" },
  ]);
}

if (import.meta.url === `file://${process.argv[1]}`) ensureSystemPackages();
