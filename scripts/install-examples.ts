/**
 * Installs the example projects' own dependencies (`npm ci` in each of EXAMPLES: Hardhat 3,
 * Foundry's forge and cast from npm, and the Ponder indexer), which the end-to-end tests run against
 * chaind. Hardhat 3 and Ponder need Node ≥ 22, so they are kept out of the root
 * package (whose `npm ci` runs on the system Node) and installed here with the project's Node 24, the
 * `node` this script runs on. A no-op for a project whose lockfile is already installed.
 *
 * Usage: node scripts/install-examples.ts [--if-possible]   (--if-possible: an install that fails,
 * offline say, is reported and skipped with exit 0, and the tests that need it skip: what `npm test`
 * runs first)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
export const EXAMPLES = ['examples/hardhat', 'examples/foundry', 'examples/ponder'];

const ifPossible = process.argv.includes('--if-possible');

/**
 * npm records the installed tree in node_modules/.package-lock.json: installed when it holds every
 * package of the lockfile at its version (optional ones, such as other platforms' binaries, may be
 * absent).
 */
function installed(dir: string): boolean {
  const hidden = join(dir, 'node_modules', '.package-lock.json');
  if (!existsSync(hidden)) return false;
  type Packages = Record<string, { version?: string; optional?: boolean }>;
  const read = (file: string): Packages => JSON.parse(readFileSync(file, 'utf8')).packages ?? {};
  const lock = read(join(dir, 'package-lock.json'));
  const tree = read(hidden);
  return Object.entries(lock).every(
    ([k, p]) => k === '' || tree[k]?.version === p.version || (p.optional === true && !tree[k]),
  );
}

let failed = false;
for (const example of EXAMPLES) {
  const dir = join(ROOT, example);
  if (installed(dir)) {
    console.log(`${example}: dependencies installed`);
    continue;
  }
  console.log(`${example}: npm ci with node ${process.version}`);
  // npm on this Node (first on PATH), so engine checks and install scripts see Node 24
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
  });
  if (r.status !== 0) {
    console.error(`${example}: npm ci failed (exit ${r.status ?? r.signal})`);
    failed = true;
  }
}
if (failed) {
  if (ifPossible) {
    console.log('skipping: the tests of the examples that are not installed will be skipped');
    process.exit(0);
  }
  process.exit(1);
}
