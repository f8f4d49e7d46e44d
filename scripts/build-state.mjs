// Decides whether `.next` is up to date with the sources, so `npm start` only builds when needed.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const INPUTS = ['app', 'components', 'lib', 'server', 'drizzle', 'public'];
const FILES = [
  'package-lock.json',
  'next.config.mjs',
  'tsconfig.json',
  'postcss.config.mjs',
  'proxy.ts',
  'instrumentation.ts',
  'scripts/build.mjs',
];
const STAMP = path.join('.next', 'toolscope-build-stamp');
/** The custom server `npm start` runs: server/main.ts bundled with the agent path (scripts/build.mjs). */
export const SERVER_BUNDLE = path.join('.next', 'toolscope-server.mjs');

function walk(dir, out) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    // Tests and their helpers (`testing/` folders: fixtures, test servers) are not built into the
    // app; changing one must not make `npm start` or the built-server tests build again.
    if (entry.isDirectory()) {
      if (entry.name !== 'testing') walk(full, out);
    } else if (!/\.test\.tsx?$/.test(entry.name)) out.push(full);
  }
}

/** A fingerprint of every build input: paths, sizes and modification times. */
export function sourceFingerprint(root = process.cwd()) {
  const files = [];
  for (const dir of INPUTS) walk(path.join(root, dir), files);
  for (const file of FILES) files.push(path.join(root, file));
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    try {
      const stat = fs.statSync(file);
      hash.update(`${path.relative(root, file)}:${stat.size}:${stat.mtimeMs}\n`);
    } catch {
      hash.update(`${file}:missing\n`);
    }
  }
  return hash.digest('hex');
}

export function isBuildCurrent(root = process.cwd()) {
  try {
    return (
      fs.existsSync(path.join(root, '.next', 'BUILD_ID')) &&
      fs.existsSync(path.join(root, SERVER_BUNDLE)) &&
      fs.readFileSync(path.join(root, STAMP), 'utf8') === sourceFingerprint(root)
    );
  } catch {
    return false;
  }
}

export function writeBuildStamp(root = process.cwd()) {
  fs.writeFileSync(path.join(root, STAMP), sourceFingerprint(root));
}
