/**
 * A Foundry script (examples/foundry) that deploys a contract and calls it, broadcast by
 * `forge script --broadcast` to a spawned `chaind dev`. forge is the example's own dependency
 * (@foundry-rs/forge), installed by scripts/install-examples.ts; it compiles with the repository's
 * solc-js through examples/foundry/solc.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { startDev } from '../helpers/dev-banner.ts';

const PROJECT = resolve(import.meta.dirname, '../../examples/foundry');
const FORGE = join(PROJECT, 'node_modules/.bin/forge');

function forge(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(FORGE, args, {
      cwd: PROJECT,
      // the project's Node runs forge's launcher and the solc-js wrapper
      env: { ...process.env, ...env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => done({ code, output }));
  });
}

async function rpc(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

test(
  'forge script --broadcast deploys and calls a contract on chaind dev',
  {
    skip: existsSync(FORGE)
      ? false
      : 'examples/foundry is not installed: run node scripts/install-examples.ts',
  },
  async (t) => {
    const { banner } = await startDev(t);
    const r = await forge(
      ['script', 'script/Counter.s.sol:CounterScript', '--rpc-url', banner.evmUrl, '--broadcast'],
      { PRIVATE_KEY: banner.accounts[0].key },
    );
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /ONCHAIN EXECUTION COMPLETE & SUCCESSFUL/, r.output);

    const run = JSON.parse(
      readFileSync(join(PROJECT, 'broadcast/Counter.s.sol/713714/run-latest.json'), 'utf8'),
    ) as {
      receipts: { status: string; transactionHash: string }[];
      transactions: { contractAddress?: string }[];
    };
    assert.equal(run.receipts.length, 2);
    for (const receipt of run.receipts) {
      const onChain = (await rpc(banner.evmUrl, 'eth_getTransactionReceipt', [receipt.transactionHash])) as {
        status: string;
      };
      assert.equal(onChain.status, '0x1');
    }
    const counter = run.transactions[0].contractAddress!;
    const x = await rpc(banner.evmUrl, 'eth_call', [{ to: counter, data: '0x0c55699c' }, 'latest']);
    assert.equal(BigInt(x as string), 1n);
  },
);
