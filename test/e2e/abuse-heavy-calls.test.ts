/**
 * Heavy calls once stalled everything: one widest eth_getLogs held the event loop for up to a second,
 * ten at once stalled eth_blockNumber 6.5 s, a struct-log trace about a second. Log queries now read
 * the store a page at a time and serialise in slices, yielding to the event loop between them, and
 * each heavy kind runs at most `[evm] max_concurrent_log_queries` / `max_concurrent_simulations` calls
 * at once: more wait their turn, and past 16 waiting per allowed call they are refused at once with
 * -32005 naming the key. Both limits are 1 here; 20 clients ask at once. eth_blockNumber latency is
 * printed (bench/heavy-calls.bench.ts measures it), not asserted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alive, BlockNumberProbe, post, spawnDev } from '../helpers/abuse.ts';
import { fillLogs } from '../helpers/log-load.ts';

const hex = (n: number) => '0x' + n.toString(16);
const busy = (method: string, key: string) =>
  `busy: 1 calls like ${method} are running and 16 waiting, the most this node serves at once ([evm] ${key} = 1); try again later`;

/** `n` clients each send `body` at once, on connections of their own. */
async function burst(url: string, n: number, body: (i: number) => object) {
  return Promise.all(Array.from({ length: n }, (_, i) => post(url, body(i), undefined, 180_000)));
}

test('heavy calls run a few at a time, the rest wait or are refused as busy; cheap calls keep answering', async (t) => {
  const node = await spawnDev(t, {
    'evm.max_concurrent_log_queries': '1',
    'evm.max_concurrent_simulations': '1',
  });
  const { from, to } = await fillLogs(node.http, 2, 9_000);
  const probe = new BlockNumberProbe(t, node.http, 10);

  const logs = await burst(node.http, 20, (i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'eth_getLogs',
    params: [{ fromBlock: hex(Math.max(1, from - 1000)), toBlock: hex(to) }],
  }));
  const logsRefused = logs.filter((r) => r.error);
  for (const r of logsRefused)
    assert.deepEqual(r.error, { code: -32005, message: busy('eth_getLogs', 'max_concurrent_log_queries') });
  for (const r of logs.filter((r) => !r.error)) assert.equal(r.result.length, 18_000);
  t.diagnostic(
    `eth_getLogs: ${logs.length - logsRefused.length} answered, ${logsRefused.length} refused as busy`,
  );
  assert.ok(logsRefused.length >= 1 && logsRefused.length <= 3, `${logsRefused.length} refused`);

  // JUMPDEST PUSH1 0 JUMP until the 10M gas run out
  const calls = await burst(node.http, 20, (i) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'eth_call',
    params: [{ data: '0x5b600056' }, 'latest'],
  }));
  const callsRefused = calls.filter((r) => r.error?.code === -32005);
  for (const r of callsRefused)
    assert.deepEqual(r.error, { code: -32005, message: busy('eth_call', 'max_concurrent_simulations') });
  for (const r of calls.filter((r) => r.error?.code !== -32005))
    assert.deepEqual(r.error, { code: -32000, message: 'out of gas' });
  t.diagnostic(`eth_call: ${calls.length - callsRefused.length} ran, ${callsRefused.length} refused as busy`);
  assert.ok(callsRefused.length >= 1 && callsRefused.length <= 3, `${callsRefused.length} refused`);

  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the bursts: ${JSON.stringify(report)}`);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});
