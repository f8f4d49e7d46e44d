// `npm run reliability`: drives the built server through the faults of
// lib/hardening/faults-survived.test.ts (a locked database, a full disk, a read-only data
// folder, SIGKILL during approval decisions, an import and a retention sweep) and prints the
// README's Reliability table from what each fault showed.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { buildIfNeeded } from './build.mjs';

const REPORT = '.test-reports/reliability.json';
await buildIfNeeded();
fs.mkdirSync('.test-reports', { recursive: true });
fs.rmSync(REPORT, { force: true });
const bin = fs.existsSync('node_modules/.bin/vitest') ? 'node_modules/.bin/vitest' : 'vitest';
const run = spawnSync(bin, ['run', 'lib/hardening/faults-survived.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, TOOLSCOPE_RELIABILITY_REPORT: REPORT, TOOLSCOPE_REQUIRE_BUILD: '1' },
});
if (!fs.existsSync(REPORT)) {
  console.error('[toolscope] the fault tests wrote no report');
  process.exit(run.status || 1);
}
const rows = JSON.parse(fs.readFileSync(REPORT, 'utf8'));
const number = (n) => n.toLocaleString('en-US');
console.log('\n| Fault | Survived | Answered calls | Lost | Refused (503) | Reads (5xx) | What happened |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | --- |');
for (const row of rows) {
  console.log(
    `| ${row.fault} | ${row.survived ? 'yes' : '**no**'} | ${number(row.answered)} | ${number(row.lost)} | ${number(row.refused)} | ${number(row.reads)} (${number(row.failedReads)}) | ${row.note} |`,
  );
}
const survived = rows.filter((row) => row.survived).length;
const lost = rows.reduce((sum, row) => sum + row.lost, 0);
console.log(`\nFaults survived ${survived}/${rows.length}, answered calls lost ${lost}.`);
process.exit(run.status ?? 1);
