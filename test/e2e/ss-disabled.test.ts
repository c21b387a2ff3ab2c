/**
 * `[state-store] ss-enable = false` runs a latest-only node (no State Store database; state reads
 * from State Commit; history answers an error naming ss-enable); `[state-commit] sc-enable = false`
 * is refused with the reason.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { JsonRpcProvider, Wallet } from 'ethers';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const DEV_COSMOS = 'chain1'; // prefix of the dev accounts' bech32 addresses

async function rpc(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

test('sc-enable = false is refused, saying why', (t) => {
  const home = tempHome(t);
  assert.equal(runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home, '--engine', 'embedded']).code, 0);
  const r = runChaind(['start', '--home', home, '--state-commit.sc-enable', 'false']);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    'error: app.toml: state-commit.sc-enable = false is not supported: State Commit computes the app hash ' +
      'every block header carries and holds the state blocks execute on, so no node runs without it; set it to true\n',
  );
  assert.ok(!existsSync(join(home, 'data', 'state_commit')), 'nothing was opened');
});

test('ss-enable = false serves the latest state without a State Store, answers history with an error naming ss-enable, and restarts', async (t) => {
  const home = tempHome(t);
  const flags = [
    '--log_format',
    'json',
    '--consensus.timeout-commit',
    '20ms',
    '--state-store.ss-enable',
    'false',
  ];
  let node = new ChaindProcess(['dev', '--home', home, ...flags]);
  t.after(() => node.stop('SIGKILL'));
  const disabled = JSON.parse(await node.waitForLine((l) => l.includes('state store disabled')));
  assert.equal(disabled.level, 'info');
  const url = JSON.parse(await node.waitForLine((l) => l.includes('JSON-RPC server listening'))).address;
  const rest = JSON.parse(await node.waitForLine((l) => l.includes('REST API listening'))).address.replace(
    'tcp://',
    'http://',
  );
  const cosmosAddress = (await node.waitForLine((l) => l.includes(' (0) 0x'))).split(/\s+/)[3];
  assert.ok(cosmosAddress.startsWith(DEV_COSMOS), cosmosAddress);

  const provider = new JsonRpcProvider(url, undefined, { pollingInterval: 50, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  const to = Wallet.createRandom().address;
  const sent = await new Wallet(DEV_KEY, provider).sendTransaction({ to, value: 777n, gasLimit: 21000 });
  const mined = (await sent.wait(1, 30_000))!.blockNumber;
  await node.waitForLine((l) => l.includes('"committed block"') && JSON.parse(l).height >= mined + 20);

  // Latest reads, many of them while blocks commit every 20 ms: each one answers, none errs.
  const balances = await Promise.all(
    Array.from({ length: 200 }, () => rpc(url, 'eth_getBalance', [to, 'latest'])),
  );
  for (const b of balances) assert.deepEqual(b.result, '0x309', JSON.stringify(b));
  // a Cosmos query that iterates a store (the account's balances), at the latest height
  const res = await fetch(`${rest}/cosmos/bank/v1beta1/balances/${cosmosAddress}`);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { balances: { denom: string; amount: string }[] };
  assert.equal(body.balances[0].denom, 'uchain');
  // debug_trace re-executes the latest block over the state before it, kept in memory
  const traced = await rpc(url, 'debug_traceBlockByNumber', ['latest', { tracer: 'callTracer' }]);
  assert.ok(Array.isArray(traced.result), JSON.stringify(traced));

  // History: a clear error naming ss-enable, never a wrong answer.
  for (const [method, params] of [
    ['eth_getBalance', [to, `0x${mined.toString(16)}`]],
    ['eth_getCode', [to, '0x1']],
    ['eth_getTransactionCount', [to, '0x1']],
  ] as const) {
    const r = await rpc(url, method, [...params]);
    assert.equal(
      r.result,
      undefined,
      `${method} ${JSON.stringify(params)} answered ${JSON.stringify(r.result)}`,
    );
    assert.equal(r.error?.code, -32000);
    assert.match(
      r.error!.message,
      /not available \(this node keeps no state history \(state-store\.ss-enable = false\)\)/,
    );
  }
  // Block objects carry the base fee, which the state before the block holds: recent ones are served,
  // older ones answer why not; transactions, receipts and logs come from the block store alone.
  const latest = Number((await rpc(url, 'eth_blockNumber', [])).result);
  const recent = await rpc(url, 'eth_getBlockByNumber', [`0x${(latest - 1).toString(16)}`, false]);
  assert.equal((recent.result as { number: string }).number, `0x${(latest - 1).toString(16)}`);
  const oldBlock = await rpc(url, 'eth_getBlockByNumber', [`0x${mined.toString(16)}`, false]);
  assert.match(
    oldBlock.error?.message ?? '',
    new RegExp(
      `^block ${mined}'s base fee is read from the state after block ${mined - 1}, which is not available: this node keeps no state history \\(state-store\\.ss-enable = false\\)`,
    ),
    JSON.stringify(oldBlock),
  );
  const receipt = await rpc(url, 'eth_getTransactionReceipt', [sent.hash]);
  assert.equal((receipt.result as { status: string }).status, '0x1');
  const logs = await rpc(url, 'eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }]);
  assert.ok(Array.isArray(logs.result), JSON.stringify(logs));

  const oldTrace = await rpc(url, 'debug_traceBlockByNumber', [`0x${mined.toString(16)}`, {}]);
  assert.match(oldTrace.error?.message ?? '', /state-store\.ss-enable = false/, JSON.stringify(oldTrace));

  provider.destroy();
  assert.equal((await node.stop('SIGTERM')).code, 0);
  assert.ok(!existsSync(join(home, 'data', 'pebbledb')), 'no State Store database was created');

  // a restart recovers from State Commit and the block store alone, and produces on
  node = new ChaindProcess(['start', '--home', home, ...flags]);
  t.after(() => node.stop('SIGKILL'));
  const opened = JSON.parse(await node.waitForLine((l) => l.includes('"chain opened"')));
  await node.waitForLine((l) => l.includes('"committed block"') && JSON.parse(l).height > opened.height + 2);
  const url2 = JSON.parse(await node.waitForLine((l) => l.includes('JSON-RPC server listening'))).address;
  assert.equal((await rpc(url2, 'eth_getBalance', [to, 'latest'])).result, '0x309');
  assert.equal((await node.stop('SIGTERM')).code, 0);
});
