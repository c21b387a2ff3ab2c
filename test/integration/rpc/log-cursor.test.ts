/**
 * A block with more matching logs than `max_log_no_block`: a log filter's polls (eth_ and chain_) and
 * a `logs` subscription report every one of them, in order, at most the cap per poll, the next polls
 * carrying on inside the block.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { until } from '../../helpers/node.ts';
import { emitterNode } from './log-emitter.ts';
import { hex } from './rpc-helpers.ts';

/** Polls `method` until a poll answers no log (block production is stopped meanwhile). */
async function drain(call: (m: string, ...p: unknown[]) => Promise<any>, method: string, id: string) {
  const polls: any[][] = [];
  for (;;) {
    const logs = await call(method, id);
    if (logs.length === 0) return polls;
    polls.push(logs);
    assert.ok(polls.length < 100, 'a filter that keeps answering');
  }
}

test('a block with more logs than max_log_no_block is reported over several polls', async (t) => {
  const { node, call, emit, emitter } = await emitterNode(t, {
    'evm.max_log_no_block': '3',
    'evm.enabled_legacy_chain_apis': 'chain_newFilter,chain_getFilterChanges',
  });
  const producer = node.modules.engine.producer!;
  const ethId = await call('eth_newFilter', {});
  // an address is answered from the logs index, an empty filter by walking the blocks
  const byAddress = await call('eth_newFilter', { address: emitter });
  const chainId = await call('chain_newFilter', {});
  const busy = await emit(7);
  const after = await emit(2);
  assert.notEqual(busy.blockNumber, after.blockNumber);
  await producer.stop();
  const expected = [...busy.logs, ...after.logs];
  assert.equal(expected.length, 9);
  assert.deepEqual(
    busy.logs.map((l: any) => l.logIndex),
    ['0x0', '0x1', '0x2', '0x3', '0x4', '0x5', '0x6'],
  );
  // three per poll, the cursor stopping inside the busy block twice, then the rest
  for (const id of [ethId, byAddress]) {
    const polls = await drain(call, 'eth_getFilterChanges', id);
    assert.deepEqual(polls, [expected.slice(0, 3), expected.slice(3, 6), expected.slice(6, 9)]);
  }
  // chain_ counts its view's logs, and may stop at the end of the busy block with fewer than three
  const chainPolls = await drain(call, 'chain_getFilterChanges', chainId);
  assert.ok(chainPolls.every((p) => p.length <= 3));
  assert.deepEqual(chainPolls.flat(), expected);
  producer.start();
  // the cursor moved past the busy block for good: new logs keep coming
  const later = await emit(1);
  await producer.stop();
  assert.deepEqual(await drain(call, 'eth_getFilterChanges', ethId), [later.logs]);
  assert.deepEqual(await drain(call, 'eth_getFilterChanges', byAddress), [later.logs]);
  assert.deepEqual(await drain(call, 'chain_getFilterChanges', chainId), [later.logs]);
});

test('a logs subscription delivers every log of a block with more than max_log_no_block', async (t) => {
  const { node, emit } = await emitterNode(t, { 'evm.max_log_no_block': '3' });
  const ws = new WebSocket(node.modules.evmWs!.url);
  t.after(() => ws.close());
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const seen: any[] = [];
  let subscription: string | undefined;
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.id === 1) subscription = msg.result;
    else if (msg.method === 'eth_subscription') seen.push(msg.params);
  });
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', {}] }));
  await until(() => subscription);
  const busy = await emit(7);
  const after = await emit(1);
  await until(() => seen.length >= 8);
  assert.deepEqual(
    seen,
    [...busy.logs, ...after.logs].map((result) => ({ subscription, result })),
  );
});

test('the real trigger: 10,001 LOG0s in one tx under the default max_log_no_block', async (t) => {
  const { node, call, emit } = await emitterNode(t);
  const id = await call('eth_newFilter', {});
  const busy = await emit(10_001);
  await node.modules.engine.producer!.stop();
  assert.equal(busy.logs.length, 10_001);
  const polls = await drain(call, 'eth_getFilterChanges', id);
  assert.deepEqual(
    polls.map((p) => p.length),
    [10_000, 1],
  );
  assert.deepEqual(polls.flat(), busy.logs);
  assert.equal(hex(10_000), polls[1][0].logIndex);
});
