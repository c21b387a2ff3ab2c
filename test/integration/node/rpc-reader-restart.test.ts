/**
 * A reader thread of the EVM JSON-RPC port that dies (here: terminated, as an uncaught error would
 * end it) is logged, started again after a second, and serves again; meanwhile the main thread keeps
 * the port served, and the dead thread's counts stay in the node's metrics.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { memoryLogger, type LogRecord } from '../../../src/util/logger.ts';
import { post, waitFor } from '../../helpers/abuse.ts';
import { makeHome, startNode, until } from '../../helpers/node.ts';

/** eth_blockNumber on a connection of its own (no agent), so the kernel picks a listener each time. */
async function blockNumber(url: string): Promise<string> {
  const answer = await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  if (answer.error) throw new Error(answer.error.message);
  return answer.result;
}

/** eth_blockNumber answers counted in one thread's metrics snapshot. */
function answered(snapshot: MetricObjectWithValues<MetricValue<string>>[] | undefined): number {
  const family = snapshot?.find((m) => m.name === 'chaind_rpc_requests_total');
  return (family?.values ?? [])
    .filter((v) => v.labels.method === 'eth_blockNumber')
    .reduce((sum, v) => sum + v.value, 0);
}

test('a reader thread that dies is started again; the port stays served and its counts are kept', async (t) => {
  const records: LogRecord[] = [];
  const node = await startNode(makeHome(t), { 'evm.http_reader_threads': '1' }, memoryLogger(records));
  t.after(() => node.stop());
  const readers = node.modules.rpcReaders;
  assert.ok(readers, 'the node started a reader thread');
  const url = node.modules.evmHttp!.url;
  const threadCount = () => readers.metrics().reduce((sum, m) => sum + answered(m), 0);

  // until the reader thread has answered some (its metrics arrive about once a second)
  await waitFor(async () => {
    await Promise.all(Array.from({ length: 8 }, () => blockNumber(url)));
    return threadCount() > 0;
  });
  const before = threadCount();
  const dead = readers.threads[0]!;
  await dead.terminate();
  assert.equal(readers.threads[0], undefined, 'the slot waits to start its thread again');

  // the main thread serves every connection meanwhile
  const during = await Promise.all(Array.from({ length: 16 }, () => blockNumber(url)));
  assert.ok(during.every((h) => /^0x[0-9a-f]+$/.test(h)));
  assert.ok(
    records.some((r) => r.level === 'error' && r.msg === 'RPC reader thread exited; starting it again'),
    'the exit is logged as an error',
  );

  // started again, and serving: the new thread's own counts grow
  const restarted = await until(() => readers.threads[0] !== undefined && readers.threads[0] !== dead);
  assert.ok(restarted);
  await waitFor(async () => {
    await Promise.all(Array.from({ length: 8 }, () => blockNumber(url)));
    const snapshots = readers.metrics();
    // the dead thread's last counts (kept) and the new thread's
    return snapshots.length === 2 && answered(snapshots[1]) > 0;
  });
  assert.ok(threadCount() > before, 'the counts never went back');
});
