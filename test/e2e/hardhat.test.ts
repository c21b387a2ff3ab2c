/**
 * A Hardhat 3 project's mocha + ethers tests (examples/hardhat), written without
 * waitForDeployment() and with Hardhat's network helpers as its docs use them, run by Hardhat itself
 * against a spawned `chaind dev`. Hardhat is the
 * example's own dependency, installed by scripts/install-examples.ts (`npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { startDev } from '../helpers/dev-banner.ts';

const PROJECT = resolve(import.meta.dirname, '../../examples/hardhat');
const HARDHAT = join(PROJECT, 'node_modules/hardhat/dist/src/cli.js');

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [HARDHAT, ...args], {
      cwd: PROJECT,
      env: { ...process.env, ...env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => done({ code, output }));
  });
}

/** The example's tests: Counter, Lock, LockFixture, Fixture, Snapshots and AccountHelpers. */
const PASSING = 24;

test(
  "Hardhat 3 tests (deploy and call without waitForDeployment(), the network helpers: time, mine, setBalance, impersonateAccount, setStorageAt, loadFixture, takeSnapshot) pass on chaind dev and on Hardhat's own network",
  {
    skip: existsSync(HARDHAT)
      ? false
      : 'examples/hardhat is not installed: run node scripts/install-examples.ts',
  },
  async (t) => {
    const { banner } = await startDev(t);
    // every test file: the helpers' fixtures and snapshots (loadFixture, takeSnapshot), time, mine,
    // setBalance, impersonateAccount, setStorageAt
    const r = await run(['test', 'mocha', '--network', 'chaind'], { CHAIND_RPC_URL: banner.evmUrl });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, new RegExp(`\\b${PASSING} passing`), r.output);
    assert.doesNotMatch(r.output, /failing/, r.output);
    // the same tests on Hardhat's in-process network: they are not written for chaind
    const own = await run(['test', 'mocha'], {});
    assert.equal(own.code, 0, own.output);
    assert.match(own.output, new RegExp(`\\b${PASSING} passing`), own.output);
  },
);
