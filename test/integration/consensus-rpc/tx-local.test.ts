/**
 * In network mode the consensus RPC passes most routes to CometBFT's RPC, but answers `/tx` and
 * `/tx_search` from this node's own tx index, written with the block in one transaction. CometBFT's
 * index is written after the block by a service that never writes a height again once its write
 * failed (a full disk), so a committed tx can be missing there for good. The consensus engine here is
 * a stand-in whose index lacks every tx, as CometBFT's does after such a failure; the node and its
 * stores are real.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { b64, evmTransferTxRaw } from './fixtures.ts';
import { consensusRpcOver, get, post, startRpcNode } from './helpers.ts';

test("tx lookups read the node's own index in network mode, whatever CometBFT's index holds", async (t) => {
  const { node, home, rpc } = await startRpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const raw = await evmTransferTxRaw(0, 1, 0);
  const committed = await post(rpc, 'broadcast_tx_commit', { tx: b64(raw) });
  assert.equal(committed.body.result.height, '1');
  const hash = createHash('sha256').update(raw).digest('hex').toUpperCase();
  const local = (await get(rpc, `/tx?hash=0x${hash}`)).body.result;
  assert.equal(local.height, '1');
  const localSearch = (await get(rpc, '/tx_search?query="tx.height=1"')).body.result;
  assert.equal(localSearch.total_count, '1');

  // an engine whose index lacks every tx; its other routes still answer
  const upstreamCalls: string[] = [];
  const answer = (id: unknown, path: string) => {
    if (path.includes('tx_search')) return { jsonrpc: '2.0', id, result: { txs: [], total_count: '0' } };
    if (path.includes('tx'))
      return {
        jsonrpc: '2.0',
        id,
        error: { code: -32603, message: 'Internal error', data: `tx (${hash}) not found` },
      };
    return { jsonrpc: '2.0', id, result: { from: 'engine' } };
  };
  const upstream = {
    websocketUrl: 'ws://127.0.0.1:1/websocket',
    get: async (path: string) => {
      upstreamCalls.push(path);
      return { status: 200, body: JSON.stringify(answer(-1, path)) };
    },
    post: async (body: string) => {
      upstreamCalls.push(body);
      const { id, method } = JSON.parse(body);
      return { status: 200, body: JSON.stringify(answer(id, method)) };
    },
  };
  const url = await consensusRpcOver(t, { node, home }, { replace: { upstream } });

  const g = await get(url, `/tx?hash=0x${hash}`);
  assert.equal(g.status, 200);
  assert.deepEqual(g.body.result, local);
  const p = await post(url, 'tx', { hash: Buffer.from(hash, 'hex').toString('base64') }, 9);
  assert.deepEqual(p.body, { jsonrpc: '2.0', id: 9, result: local });
  assert.deepEqual((await get(url, '/tx_search?query="tx.height=1"')).body.result, localSearch);
  const s = await post(url, 'tx_search', { query: 'tx.height=1' }, 10);
  assert.deepEqual(s.body, { jsonrpc: '2.0', id: 10, result: localSearch });
  assert.deepEqual(upstreamCalls, [], 'CometBFT was not asked');

  // unknown to the node: its own "not found"
  const missing = 'CD'.repeat(32);
  assert.equal((await get(url, `/tx?hash=0x${missing}`)).body.error.data, `tx (${missing}) not found`);
  // every other route still goes to the engine
  assert.deepEqual((await get(url, '/net_info')).body.result, { from: 'engine' });
  assert.equal(upstreamCalls.length, 1);
});
