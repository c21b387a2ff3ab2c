/**
 * The consensus RPC's `/websocket` on the embedded engine, read raw (no client library): CometBFT's
 * subscribe protocol, its refusals, and the exact shape of NewBlock and Tx events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { AuthReader } from '../../../src/app/auth.ts';
import { txHash } from '../../../src/codec/index.ts';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS } from '../../helpers/node.ts';
import { b64, cosmosSendTxRaw, hex } from './fixtures.ts';
import { atHeight, post, startRpcNode } from './helpers.ts';

/** A socket whose messages are kept; `next` resolves with the first unread one matching `pred`. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  const inbox: any[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    inbox.push(JSON.parse(d.toString()));
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const next = async (pred: (m: any) => boolean): Promise<any> => {
    for (;;) {
      const i = inbox.findIndex(pred);
      if (i >= 0) return inbox.splice(i, 1)[0];
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const call = (id: number | string, method: string, params: unknown = {}) => {
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return next((m) => m.id === id && (m.error || !m.result?.query));
  };
  return { ws, next, call };
}

test('consensus RPC /websocket: subscribe, events in CometBFT format, refusals', async (t) => {
  const { node, rpc } = await startRpcNode(t);
  await atHeight(node, 1);
  const c = await connect(`${rpc.replace('http', 'ws')}/websocket`);
  t.after(() => c.ws.terminate());

  // every route is callable over the socket
  const status = await c.call(1, 'status');
  assert.equal(status.result.node_info.network, 'it-1');

  const recipient = toAccAddress(accountFromPrivateKey(new Uint8Array(32).fill(0x44)).cosmosAddress);
  const txQuery = `tm.event='Tx' AND transfer.recipient='${recipient}'`;
  assert.deepEqual(await c.call('nb', 'subscribe', { query: "tm.event='NewBlock'" }), {
    jsonrpc: '2.0',
    id: 'nb',
    result: {},
  });
  assert.deepEqual((await c.call('tx', 'subscribe', { query: txQuery })).result, {});
  assert.equal(
    (await c.call(2, 'subscribe', { query: "tm.event='NewBlock'" })).error.data,
    'already subscribed',
  );
  const bad = await c.call(3, 'subscribe', { query: "tm.event='NewBlock' OR x.y=1" });
  assert.equal(bad.error.code, -32602);
  assert.match(bad.error.data, /^failed to parse query: query: expected AND or the end of the query/);

  const newBlock = await c.next((m) => m.id === 'nb' && m.result?.query);
  assert.equal(newBlock.result.query, "tm.event='NewBlock'");
  assert.deepEqual(newBlock.result.events, { 'tm.event': ['NewBlock'] });
  assert.equal(newBlock.result.data.type, 'tendermint/event/NewBlock');
  assert.deepEqual(Object.keys(newBlock.result.data.value).sort(), [
    'block',
    'block_id',
    'result_finalize_block',
  ]);
  const h = Number(newBlock.result.data.value.block.header.height);
  assert.equal(newBlock.result.data.value.block_id.hash, hex(node.modules.blocks.blockByHeight(h)!.hash));

  // a send to `recipient`, then its Tx event with the tx's events as the composite-key map
  const alice = DEV_ACCOUNTS[0];
  const acc = new AuthReader(node.modules.chain.state).account(alice.cosmosAddress)!;
  const raw = await cosmosSendTxRaw(0, recipient, '99', acc.accountNumber, acc.sequence);
  assert.equal((await post(rpc, 'broadcast_tx_sync', { tx: b64(raw) })).body.result.code, 0);
  const txEvent = await c.next((m) => m.id === 'tx' && m.result?.query);
  assert.equal(txEvent.result.query, txQuery);
  assert.equal(txEvent.result.data.type, 'tendermint/event/Tx');
  const { TxResult } = txEvent.result.data.value;
  assert.equal(TxResult.tx, b64(raw));
  assert.equal(TxResult.index, 0);
  assert.equal(TxResult.result.code, 0);
  const events = txEvent.result.events;
  assert.deepEqual(events['tm.event'], ['Tx']);
  assert.deepEqual(events['tx.hash'], [hex(txHash(raw))]);
  assert.deepEqual(events['tx.height'], [TxResult.height]);
  assert.ok(events['transfer.recipient'].includes(recipient));
  assert.deepEqual(events['message.action'], ['/cosmos.bank.v1beta1.MsgSend']);
  assert.deepEqual(events['tx.acc_seq'], [`${toAccAddress(alice.cosmosAddress)}/${acc.sequence}`]);

  assert.deepEqual((await c.call(4, 'unsubscribe', { query: "tm.event='NewBlock'" })).result, {});
  assert.equal(
    (await c.call(5, 'unsubscribe', { query: "tm.event='NewBlock'" })).error.data,
    'subscription not found',
  );
  assert.deepEqual((await c.call(6, 'unsubscribe_all')).result, {});
  assert.equal((await c.call(7, 'unsubscribe_all')).error.data, 'subscription not found');
  for (let i = 0; i < 5; i++)
    assert.deepEqual((await c.call(10 + i, 'subscribe', { query: `tx.height > ${i}` })).result, {});
  assert.equal(
    (await c.call(20, 'subscribe', { query: 'tx.height > 9' })).error.data,
    'max_subscriptions_per_client 5 reached',
  );

  // only /websocket upgrades
  const other = new WebSocket(`${rpc.replace('http', 'ws')}/status`);
  await assert.rejects(
    new Promise((resolve, reject) => other.once('open', resolve).once('error', reject)),
    /Unexpected server response: 404/,
  );
});
