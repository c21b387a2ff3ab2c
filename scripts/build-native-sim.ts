/**
 * Builds the optional native EVM (native/evm-sim: revm behind N-API; it runs blocks and eth_call) with
 * cargo and moves the library to the git-ignored path the binding loads it from
 * (src/execution/simulation/native-binding.ts). Needs Rust (cargo); the crate's versions are pinned in
 * its Cargo.lock. `npm ci` runs it (postinstall, --if-cargo), so a machine with cargo gets revm.
 *
 * Usage: node scripts/build-native-sim.ts [--if-cargo]   (--if-cargo: without cargo, or if the build
 * fails, say so and exit 0; what uses the addon then falls back or skips, naming this command)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_SIM_PATH } from '../src/execution/simulation/native-binding.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CRATE = join(ROOT, 'native', 'evm-sim');
const optional = process.argv.includes('--if-cargo');

function fail(message: string): never {
  if (optional) {
    console.log(
      `native EVM (revm) not built (${message}); blocks and eth_call run on the JS EVM (ethereumjs)`,
    );
    process.exit(0);
  }
  console.error(message);
  process.exit(1);
}

if (process.platform !== 'linux' || process.arch !== 'x64')
  fail(`only x86_64 Linux is built here, not ${process.platform}-${process.arch}`);
if (spawnSync('cargo', ['--version'], { stdio: 'ignore' }).error) fail('cargo is not installed');
const t0 = performance.now();
console.log('building the native EVM (revm, native/evm-sim) with cargo: a minute or two the first time…');
const build = spawnSync('cargo', ['build', '--release', '--locked'], { cwd: CRATE, stdio: 'inherit' });
if (build.status !== 0) fail(`cargo build failed (exit ${build.status})`);
mkdirSync(dirname(NATIVE_SIM_PATH), { recursive: true });
// a new file moved into place: a running node keeps the library it mapped (overwriting it in place
// would crash that node)
copyFileSync(join(CRATE, 'target', 'release', 'libchaind_evm_sim.so'), `${NATIVE_SIM_PATH}.tmp`);
renameSync(`${NATIVE_SIM_PATH}.tmp`, NATIVE_SIM_PATH);
console.log(`native EVM built in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${NATIVE_SIM_PATH}`);
