/**
 * In network mode the consensus RPC passes `/tx` to CometBFT's RPC, which reads CometBFT's own tx
 * index. That index is written after the block by a service that never writes a height again once
 * its write failed (a full disk), so a committed tx can be missing there for good. A `tx` CometBFT
 * answers "not found" is looked up in this node's index (written with the block, in one
 * transaction); anything CometBFT finds is its answer, passed on unchanged. The consensus engine here
 * is a stand-in answering as CometBFT 0.38 does; the node and its stores are real.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { b64, evmTransferTxRaw } from './fixtures.ts';
import { consensusRpcOver, get, post, startRpcNode } from './helpers.ts';

test("a tx missing from CometBFT's index is answered from the node's own; what CometBFT finds passes unchanged", async (t) => {
  const { node, home, rpc } = await startRpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const raw = await evmTransferTxRaw(0, 1, 0);
  const committed = await post(rpc, 'broadcast_tx_commit', { tx: b64(raw) });
  assert.equal(committed.body.result.height, '1');
  const hash = createHash('sha256').update(raw).digest('hex').toUpperCase();
  const local = (await get(rpc, `/tx?hash=0x${hash}`)).body.result;
  assert.equal(local.height, '1');

  // CometBFT's index lacks every tx (its write failed), except the one it was told about
  const known = 'AB'.repeat(32);
  const knownAnswer = JSON.stringify({ jsonrpc: '2.0', id: -1, result: { hash: known, height: '7' } });
  const notFound = (h: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: -1,
      error: { code: -32603, message: 'Internal error', data: `tx (${h}) not found` },
    });
  const upstreamCalls: string[] = [];
  const upstream = {
    websocketUrl: 'ws://127.0.0.1:1/websocket',
    get: async (path: string) => {
      upstreamCalls.push(path);
      return path.includes(known)
        ? { status: 200, body: knownAnswer }
        : { status: 500, body: notFound(hash) };
    },
    post: async (body: string) => {
      upstreamCalls.push(body);
      const { id, params } = JSON.parse(body);
      const h = Buffer.from(params.hash, 'base64').toString('hex').toUpperCase();
      return h === known
        ? { status: 200, body: knownAnswer.replace('"id":-1', `"id":${id}`) }
        : { status: 200, body: notFound(h).replace('"id":-1', `"id":${id}`) };
    },
  };
  const url = await consensusRpcOver(t, { node, home }, { replace: { upstream } });

  // the engine does not find it: the node's own answer, in both forms
  const g = await get(url, `/tx?hash=0x${hash}`);
  assert.equal(g.status, 200);
  assert.deepEqual(g.body.result, local);
  const p = await post(url, 'tx', { hash: Buffer.from(hash, 'hex').toString('base64') }, 9);
  assert.deepEqual(p.body, { jsonrpc: '2.0', id: 9, result: local });
  assert.equal(upstreamCalls.length, 2, 'CometBFT was asked first');

  // what the engine finds is its answer, unchanged
  assert.deepEqual((await get(url, `/tx?hash=0x${known}`)).body.result, { hash: known, height: '7' });
  // unknown to both: the node's own "not found"
  const missing = 'CD'.repeat(32);
  const m = await get(url, `/tx?hash=0x${missing}`);
  assert.equal(m.body.error.data, `tx (${missing}) not found`);
});
