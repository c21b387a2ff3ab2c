/**
 * Builds the pinned grpcurl with the Go toolchain (`go install <module>/cmd/grpcurl@<version>`) into
 * a git-ignored folder of this repository, where the gRPC reflection e2e test finds it. A no-op when
 * that exact version is already there.
 *
 * Usage: node scripts/install-grpcurl.ts [--if-go]   (--if-go: without Go, or if the build fails, say
 * so and exit 0: what `npm test` runs first; the test then skips, naming this command)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { GRPCURL_MODULE, GRPCURL_VERSION, grpcurlPath, grpcurlInstalled } from '../test/helpers/grpcurl.ts';

const target = grpcurlPath();
const ifGo = process.argv.includes('--if-go');

if (grpcurlInstalled()) {
  console.log(`grpcurl v${GRPCURL_VERSION} is installed: ${target}`);
  process.exit(0);
}
const go = spawnSync('go', ['version'], { encoding: 'utf8' });
if (go.status !== 0) {
  const msg = `Go is needed to build grpcurl v${GRPCURL_VERSION} (not found on PATH)`;
  if (ifGo) {
    console.log(`${msg}; skipping: the grpcurl e2e test will be skipped`);
    process.exit(0);
  }
  console.error(msg);
  process.exit(1);
}
const dir = dirname(target);
const staging = `${dir}.building`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging, { recursive: true });
const pkg = `${GRPCURL_MODULE}/cmd/grpcurl@v${GRPCURL_VERSION}`;
console.log(`building grpcurl with ${go.stdout.trim()}: GOBIN=${staging} go install ${pkg}`);
try {
  execFileSync('go', ['install', pkg], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: staging, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
  });
} catch {
  rmSync(staging, { recursive: true, force: true });
  console.error(`go install ${pkg} failed (see above)`);
  process.exit(ifGo ? 0 : 1);
}
// the folder appears whole or not at all: a build interrupted halfway never looks installed
rmSync(dir, { recursive: true, force: true });
renameSync(staging, dir);
if (!grpcurlInstalled()) {
  console.error(`the built binary ${target} does not run`);
  process.exit(1);
}
console.log(`installed grpcurl v${GRPCURL_VERSION}: ${target}`);
