/**
 * Builds the pinned CometBFT with the Go toolchain (`go install <module>/cmd/cometbft@<version>`) into
 * a git-ignored folder of this repository, where chaind finds it. A no-op when that exact version is
 * already there. Network mode only: `chaind dev` / `npm start` never need it.
 *
 * Usage: node scripts/install-cometbft.ts [--if-go]   (--if-go: without Go, or if the build fails, say
 * so and exit 0: what `npm test` runs first)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { COMETBFT_MODULE, COMETBFT_VERSION, installedBinaryPath } from '../src/cometbft/binary.ts';
import { installGoTool } from './go-install.ts';

const target = installedBinaryPath();
installGoTool(
  {
    name: `CometBFT v${COMETBFT_VERSION}`,
    pkg: `${COMETBFT_MODULE}/cmd/cometbft@v${COMETBFT_VERSION}`,
    target,
    withoutGo: 'network-mode tests will be skipped, chaind dev works without it',
    check() {
      if (!existsSync(target)) return 'not there';
      const r = spawnSync(target, ['version'], { encoding: 'utf8' });
      const version = r.status === 0 ? r.stdout.trim() : undefined;
      return version === COMETBFT_VERSION
        ? undefined
        : `it reports version ${version ?? '(none)'}, expected ${COMETBFT_VERSION}`;
    },
  },
  process.argv.includes('--if-go'),
);
