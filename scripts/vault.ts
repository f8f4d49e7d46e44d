/**
 * `npm run vault -- new-key [--discard-sealed]`: makes a new vault key (`<data folder>/vault.key`)
 * when it is missing, with Toolscope stopped. It never replaces a key, and while stored calls hold
 * values sealed with the lost one it refuses unless `--discard-sealed` (those calls can then
 * never be replayed). See `lib/server/vault-command.ts`. The data folder is the server's:
 * TOOLSCOPE_DATA_DIR, else `.toolscope/` here.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../lib/config';
import { newVaultKey } from '../lib/server/vault-command';

const USAGE = `Usage: npm run vault -- new-key [--discard-sealed]
  new-key   make a new vault.key where there is none (Toolscope stopped); --discard-sealed when
            stored calls hold values sealed with the lost key, which the new key cannot open`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'discard-sealed': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
const [command] = positionals;
if (values.help || command !== 'new-key') {
  console.error(command && !values.help ? `Unknown command "${command}".\n${USAGE}` : USAGE);
  process.exit(1);
}
const outcome = newVaultKey(loadConfig(), { discardSealed: values['discard-sealed'] === true });
if (outcome.ok) console.log(outcome.message);
else {
  console.error(outcome.message);
  process.exit(1);
}
