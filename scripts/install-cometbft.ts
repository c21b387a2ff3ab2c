/**
 * Builds the pinned CometBFT with the Go toolchain (`go install <module>/cmd/cometbft@<version>`) into
 * a git-ignored folder of this repository, where chaind finds it. A no-op when that exact version is
 * already there. Network mode only: `chaind dev` / `npm start` never need it.
 *
 * Usage: node scripts/install-cometbft.ts [--if-go]   (--if-go: without Go, or if the build fails, say
 * so and exit 0: what `npm test` runs first)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { COMETBFT_MODULE, COMETBFT_VERSION, installedBinaryPath } from '../src/cometbft/binary.ts';

const target = installedBinaryPath();
const ifGo = process.argv.includes('--if-go');

function installedVersion(): string | undefined {
  if (!existsSync(target)) return undefined;
  const r = spawnSync(target, ['version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

if (installedVersion() === COMETBFT_VERSION) {
  console.log(`cometbft v${COMETBFT_VERSION} is installed: ${target}`);
  process.exit(0);
}
const go = spawnSync('go', ['version'], { encoding: 'utf8' });
if (go.status !== 0) {
  const msg = `Go >= 1.22 is needed to build CometBFT v${COMETBFT_VERSION} for network mode (not found on PATH)`;
  if (ifGo) {
    console.log(`${msg}; skipping: network-mode tests will be skipped, chaind dev works without it`);
    process.exit(0);
  }
  console.error(msg);
  process.exit(1);
}
const dir = dirname(target);
const staging = `${dir}.building`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
const pkg = `${COMETBFT_MODULE}/cmd/cometbft@v${COMETBFT_VERSION}`;
console.log(`building CometBFT with ${go.stdout.trim()}: GOBIN=${staging} go install ${pkg}`);
try {
  execFileSync('go', ['install', pkg], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: staging, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
  });
} catch {
  rmSync(staging, { recursive: true, force: true });
  console.error(`go install ${pkg} failed (see above)`);
  // before `npm test` a failed build (no module proxy, say) skips the network-mode tests rather than
  // failing everything else; `npm run install:cometbft` itself (and CI) fails
  process.exit(ifGo ? 0 : 1);
}
// the folder appears whole or not at all: a build interrupted halfway never looks installed
rmSync(dir, { recursive: true, force: true });
renameSync(staging, dir);
const built = installedVersion();
if (built !== COMETBFT_VERSION) {
  console.error(`the built binary reports version ${built ?? '(none)'}, expected ${COMETBFT_VERSION}`);
  process.exit(1);
}
console.log(`installed cometbft v${built}: ${target}`);
