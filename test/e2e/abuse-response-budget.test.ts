/**
 * One batch once took the node down: 40 eth_getLogs over the widest range, each answer tens of MB,
 * all built and held before the batch was answered. Answers are now bounded by `[evm]
 * max_response_bytes`: a single eth_getLogs, eth_getFilterLogs or eth_call result over it is refused
 * with -32005 naming the key (eth_getLogs as soon as the logs gathered pass it), and in a batch, as
 * geth's BatchResponseMaxSize, the answer that passes it and every later request get -32003
 * 'response too large' without being run. Here the budget is 1 MB and the chain holds 5,000 logs
 * (about 2.4 MB of JSON).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alive, BlockNumberProbe, post, spawnDev } from '../helpers/abuse.ts';
import { fillLogs } from '../helpers/log-load.ts';

const BUDGET = 1_000_000;
const KEY = `max_response_bytes = ${BUDGET} bytes ([evm] max_response_bytes)`;
const hex = (n: number) => '0x' + n.toString(16);
/** the LOG1 topics of the logs numbered 1..n (log-load.ts counts down from its n) */
const topics = (n: number) =>
  Array.from({ length: n }, (_, i) => '0x' + (i + 1).toString(16).padStart(64, '0'));

test('answers over max_response_bytes are refused naming it; a batch stops at it', async (t) => {
  const node = await spawnDev(t, { 'evm.max_response_bytes': String(BUDGET) });
  const { from, to } = await fillLogs(node.http, 1, 5_000);
  const probe = new BlockNumberProbe(t, node.http);
  const range = { fromBlock: hex(from), toBlock: hex(to) };
  let id = 0;
  const req = (method: string, params: unknown[]) => ({ jsonrpc: '2.0', id: ++id, method, params });

  // one eth_getLogs over the whole range
  const all = await post(node.http, req('eth_getLogs', [range]));
  assert.equal(all.error?.code, -32005, JSON.stringify(all).slice(0, 300));
  assert.match(
    all.error.message,
    /^query result too large: more than max_response_bytes = 1000000 bytes \(\[evm\] max_response_bytes\) after \d+ logs; ask for a narrower block range or filter by address or topics$/,
  );
  // the same through a filter
  const filter = await post(node.http, req('eth_newFilter', [range]));
  const viaFilter = await post(node.http, req('eth_getFilterLogs', [filter.result]));
  assert.equal(viaFilter.error?.code, -32005);
  assert.ok(viaFilter.error.message.includes(KEY), viaFilter.error.message);
  // a narrower query answers
  const some = await post(node.http, req('eth_getLogs', [{ ...range, topics: [topics(1000)] }]));
  assert.equal(some.result?.length, 1000, JSON.stringify(some).slice(0, 300));

  // eth_call returning 1 MiB (2 MiB of hex): PUSH3 0x100000 PUSH1 0 RETURN
  const contract = '0x00000000000000000000000000000000000000aa';
  const big = await post(
    node.http,
    req('eth_call', [{ to: contract }, 'latest', { [contract]: { code: '0x621000006000f3' } }]),
  );
  assert.deepEqual(big.error, {
    code: -32005,
    message: `result too large: 1048576 bytes of return data exceed ${KEY} as hex`,
  });

  // a batch of 40 eth_getLogs of 1,000 logs each (about 470 KB apiece): two fit, the rest do not
  const first = id + 1;
  const batch = Array.from({ length: 40 }, () => req('eth_getLogs', [{ ...range, topics: [topics(1000)] }]));
  const answers = await post(node.http, batch, undefined, 120_000);
  assert.ok(Array.isArray(answers), JSON.stringify(answers).slice(0, 300));
  assert.deepEqual(
    answers.map((a: { id: number }) => a.id),
    Array.from({ length: 40 }, (_, i) => first + i),
    'every request answered, in order',
  );
  const served = answers.filter((a: { result?: unknown[] }) => a.result?.length === 1000).length;
  assert.equal(served, 2, 'the answers that fit the budget');
  for (const a of answers.slice(served)) {
    assert.deepEqual(a.error, {
      code: -32003,
      message: `response too large: the batch's answers exceed ${KEY}`,
    });
  }
  assert.ok(JSON.stringify(answers).length < BUDGET + 40 * 200, 'the batch answer stays within the budget');

  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber meanwhile: ${JSON.stringify(report)}`);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});
