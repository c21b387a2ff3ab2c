/**
 * GET /metrics after a few blocks: the body parses with a strict Prometheus text parser, carries
 * the four alerting metrics with the expected values, the pipeline and mempool metrics, process
 * metrics, and a chain_id label on every series; the namespace comes from config.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { b64, evmTransferTxRaw } from './fixtures.ts';
import { atHeight, post, startRpcNode } from './helpers.ts';
import { type Family, parsePrometheusText } from './prom-text.ts';

async function scrape(url: string): Promise<Map<string, Family>> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const f = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ''));
  assert.ok(f, `metric ${name} missing`);
  const s = f.samples.filter(
    (x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
  );
  assert.equal(s.length, 1, `${name}${JSON.stringify(labels)}: expected one series, got ${s.length}`);
  return s[0].value;
}

test('/metrics: the alerting metrics, pipeline and mempool metrics, process metrics, chain_id everywhere', async (t) => {
  const { node, rpc, metrics, logs } = await startRpcNode(t);
  const listening = logs.find((r) => r.msg === 'metrics listening');
  assert.deepEqual(listening?.fields, { module: 'rpc', address: `127.0.0.1:${new URL(metrics).port}` });
  const validator = JSON.parse(
    Buffer.from(await (await fetch(`${rpc}/status`)).arrayBuffer()).toString('utf8'),
  ).result.validator_info.address;
  const committed = await post(rpc, 'broadcast_tx_commit', { tx: b64(await evmTransferTxRaw(3, 4, 0)) });
  assert.equal(committed.body.result.tx_result.code, 0);
  await atHeight(node, Number(committed.body.result.height) + 2);

  const before = node.modules.chain.latestHeight;
  const families = await scrape(metrics);
  const afterHeight = node.modules.chain.latestHeight;

  const types = Object.fromEntries([...families.values()].map((f) => [f.name, f.type]));
  assert.equal(types.tendermint_consensus_height, 'gauge');
  assert.equal(types.tendermint_consensus_height_status, 'gauge');
  assert.equal(types.tendermint_consensus_validator_missed_blocks, 'gauge');
  assert.equal(types.tendermint_consensus_validator_status, 'gauge');

  const height = value(families, 'tendermint_consensus_height');
  assert.ok(
    height >= before && height <= afterHeight,
    `height ${height} outside [${before}, ${afterHeight}]`,
  );
  assert.ok(height >= 3);
  assert.equal(value(families, 'tendermint_consensus_height_status'), 1);
  // a lone validator is the highest height it knows of
  assert.equal(value(families, 'tendermint_consensus_lag_blocks'), 0);
  const stores = families.get('tendermint_storage_size_bytes')!.samples;
  assert.ok(stores.some((s) => s.labels.store === 'blockstore' && s.value > 0));
  assert.equal(
    value(families, 'tendermint_consensus_validator_missed_blocks', { validator_address: validator }),
    0,
  );
  assert.equal(value(families, 'tendermint_consensus_validator_status', { validator_address: validator }), 1);

  // Every block seen by the metrics was timed; the tx is counted in txs per block.
  const blocks = value(families, 'tendermint_consensus_block_txs_count');
  assert.ok(blocks >= 3);
  assert.ok(value(families, 'tendermint_consensus_block_txs_sum') >= 1);
  // Intervals need a previous block: the first block, if the metrics saw it, has none.
  const intervals = value(families, 'tendermint_consensus_block_interval_seconds_count');
  assert.ok(intervals === blocks || intervals === blocks - 1, `${intervals} intervals for ${blocks} blocks`);
  for (const step of ['block_store_write', 'ss_commit', 'sc_commit']) {
    assert.equal(value(families, `tendermint_chain_${step}_seconds_count`), blocks);
    assert.ok(value(families, `tendermint_chain_${step}_seconds_sum`) > 0);
  }
  assert.equal(value(families, 'tendermint_consensus_num_txs'), 0);
  assert.equal(value(families, 'tendermint_mempool_size'), 0);
  assert.equal(value(families, 'tendermint_mempool_evm_pending_txs'), 0);
  assert.ok(value(families, 'process_cpu_user_seconds_total') > 0);
  assert.ok(families.has('nodejs_eventloop_lag_seconds'));

  for (const f of families.values())
    for (const s of f.samples) assert.equal(s.labels.chain_id, 'it-1', `${s.name} lacks chain_id`);

  // A queued EVM tx (nonce gap) stays in the pool and shows in the mempool gauges. Blocks are paused:
  // ten blocks (ttl-num-blocks) between admission and the scrape would expire it.
  await node.modules.engine.producer!.stop();
  const gap = await post(rpc, 'broadcast_tx_sync', { tx: b64(await evmTransferTxRaw(5, 4, 3)) });
  assert.equal(gap.body.result.code, 0);
  const later = await scrape(metrics);
  assert.equal(value(later, 'tendermint_mempool_size'), 1);
  assert.equal(value(later, 'tendermint_mempool_evm_queued_txs'), 1);

  assert.equal((await fetch(metrics.replace(/\/metrics$/, '/other'))).status, 404);
});

test('[instrumentation] namespace names the metrics; prometheus = false serves none', async (t) => {
  const custom = await startRpcNode(t, { 'instrumentation.namespace': 'chaind' });
  await atHeight(custom.node, 1);
  const families = await scrape(custom.metrics);
  assert.ok(value(families, 'chaind_consensus_height') >= 1);
  assert.ok(families.has('chaind_consensus_validator_missed_blocks'));
  assert.equal([...families.keys()].filter((n) => n.startsWith('tendermint_')).length, 0);

  const off = await startRpcNode(t, { 'instrumentation.prometheus': 'false' });
  assert.equal(off.node.modules.metrics, undefined);
  assert.equal((await fetch(`${off.rpc}/health`)).status, 200, 'the consensus RPC runs without metrics');
});
