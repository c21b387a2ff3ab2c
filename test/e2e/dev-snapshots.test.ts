/**
 * Snapshots and resets of the dev chain through HTTP against the real `chaind dev`: evm_snapshot /
 * evm_revert (and anvil's names) bring back state, blocks, the pool, the clock and the mining mode;
 * hardhat_reset / anvil_reset go back to genesis; a kept dev home restarted after a mix of them
 * replays its blocks with the app-hash checks and serves the same chain.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { startDev } from '../helpers/dev-banner.ts';
import { tempHome } from '../helpers/chaind.ts';
import { result, rpc } from '../helpers/json-rpc.ts';

function client(url: string) {
  const call = (method: string, params: unknown[] = []) => result(url, method, params);
  const latest = async () => call('eth_getBlockByNumber', ['latest', false]);
  const height = async () => Number(await call('eth_blockNumber'));
  return { raw: (method: string, params: unknown[] = []) => rpc(url, method, params), call, latest, height };
}

const TO = '0x' + '42'.repeat(20);

/**
 * A call on a new connection each time: the port is shared with the RPC reader threads
 * (SO_REUSEPORT), so a run of these reaches each of them and the main thread.
 */
function fresh(url: string, method: string, params: unknown[] = []): Promise<any> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(JSON.parse(text).result));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const hex = (n: number) => '0x' + n.toString(16);

test('evm_snapshot / evm_revert: state, blocks, pool, clock and mining mode come back; ids are deleted from the one reverted to on', async (t) => {
  // with an RPC reader thread, which must not serve a reverted block either
  const { banner } = await startDev(t, ['--evm.http_reader_threads', '1']);
  const { raw, call, latest, height } = client(banner.evmUrl);
  const from = banner.accounts[0].evm.toLowerCase();

  const s0 = await call('evm_snapshot');
  assert.equal(s0, '0x1');
  const base = await latest();
  const h0 = Number(base.number);
  const balance0 = await call('eth_getBalance', [TO, 'latest']);

  // a tx mined, the clock moved a day, two blocks mined
  const signed = await call('eth_signTransaction', [{ from, to: TO, value: '0x5' }]);
  const mined = await call('eth_sendRawTransaction', [signed]);
  assert.equal((await call('eth_getTransactionReceipt', [mined])).status, '0x1');
  await call('evm_increaseTime', [86_400]);
  await call('hardhat_mine', ['0x2']);
  const ahead = await latest();
  assert.ok(Number(ahead.timestamp) >= Number(base.timestamp) + 86_400);

  // automine off and a tx waiting: the second snapshot keeps both
  await call('evm_setAutomine', [false]);
  const waiting = await call('eth_sendTransaction', [{ from, to: TO, value: '0x6' }]);
  const s1 = await call('evm_snapshot');
  assert.equal(s1, '0x2');
  const h1 = await height();
  const later = await call('eth_sendTransaction', [{ from, to: TO, value: '0x7' }]);
  await call('evm_mine');
  assert.equal(await height(), h1 + 1);
  // the reader thread has served the head that the revert will take away
  for (let i = 0; i < 16; i++) assert.equal(Number(await fresh(banner.evmUrl, 'eth_blockNumber')), h1 + 1);
  assert.equal((await call('eth_getTransactionReceipt', [later])).status, '0x1');

  assert.equal(await call('evm_revert', [s1]), true);
  assert.equal(await height(), h1);
  // every thread that answers on the port (the RPC reader threads too) serves the rewound chain
  for (let i = 0; i < 16; i++) {
    assert.equal(Number(await fresh(banner.evmUrl, 'eth_blockNumber')), h1);
    assert.equal(await fresh(banner.evmUrl, 'eth_getBlockByNumber', [hex(h1 + 1), false]), null);
  }
  assert.equal(await call('eth_getBlockByNumber', [hex(h1 + 1), false]), null);
  assert.equal(await call('eth_getTransactionReceipt', [later]), null);
  assert.equal(await call('eth_getTransactionByHash', [later]), null, 'a tx sent after the snapshot is gone');
  const pending = await call('eth_getTransactionByHash', [waiting]);
  assert.equal(pending.blockNumber, null, 'the tx waiting at the snapshot waits again');
  assert.equal(await call('hardhat_getAutomine'), false);
  // the snapshot reverted to is gone, and so is every later one
  assert.equal(await call('evm_revert', [s1]), false);

  const s2 = await call('evm_snapshot');
  assert.equal(s2, '0x3', 'ids keep growing');
  const s3 = await call('anvil_snapshot');
  assert.equal(await call('anvil_revert', [s2]), true);
  assert.equal(await call('evm_revert', [s3]), false, 'a revert deletes the later snapshots');
  assert.equal(await call('evm_revert', ['0x99']), false, 'an unknown id');
  assert.equal(await call('evm_revert', [77]), false, 'an id as a JSON number');

  // back to the first: the blocks, the tx, the day and automine's off are all undone
  assert.equal(await call('evm_revert', [s0]), true);
  assert.equal(await height(), h0);
  assert.equal((await latest()).hash, base.hash);
  assert.equal(await call('eth_getBalance', [TO, 'latest']), balance0);
  for (let i = 0; i < 16; i++) {
    assert.equal((await fresh(banner.evmUrl, 'eth_getBlockByNumber', ['latest', false])).hash, base.hash);
    assert.equal(await fresh(banner.evmUrl, 'eth_getBalance', [TO, 'latest']), balance0);
  }
  for (let h = h0 + 1; h <= h1; h++) assert.equal(await call('eth_getBlockByNumber', [hex(h), false]), null);
  assert.equal(await call('eth_getTransactionReceipt', [mined]), null);
  assert.equal(await call('eth_getTransactionByHash', [waiting]), null);
  assert.equal(await call('hardhat_getAutomine'), true);
  assert.equal(await call('evm_revert', [s0]), false);

  // the reverted tx can be sent again: it is mined in a new block h0 + 1, without the day
  assert.equal(await call('eth_sendRawTransaction', [signed]), mined);
  const again = await call('eth_getTransactionReceipt', [mined]);
  assert.equal(again.status, '0x1');
  assert.equal(Number(again.blockNumber), h0 + 1);
  const redone = await latest();
  assert.ok(Number(redone.timestamp) < Number(ahead.timestamp), 'the clock went back with the revert');
  assert.notEqual(redone.hash, ahead.hash);
  // the same tx at the same height and index: its receipt names the new block, not the reverted one
  assert.equal(again.blockHash, redone.hash);
  assert.equal((await call('eth_getTransactionByHash', [mined])).blockHash, redone.hash);
  for (let i = 0; i < 16; i++)
    assert.equal(
      (await fresh(banner.evmUrl, 'eth_getBlockByNumber', [hex(h0 + 1), false])).hash,
      redone.hash,
    );
  assert.equal(BigInt(await call('eth_getBalance', [TO, 'latest'])), BigInt(balance0) + 5n);

  // a revert with no block in between
  const s4 = await call('evm_snapshot');
  assert.equal(await call('evm_revert', [s4]), true);
  assert.equal((await latest()).hash, redone.hash);
  assert.equal((await raw('evm_revert', [])).error?.code, -32602);
});

test('filters and subscriptions follow a revert: the blocks made again are reported as the new blocks they are', async (t) => {
  const { banner } = await startDev(t);
  const { call, height } = client(banner.evmUrl);
  const from = banner.accounts[0].evm;
  const ws = new WebSocket(banner.wsUrl);
  t.after(() => ws.close());
  const heads: { number: string; hash: string }[] = [];
  const subscribed = new Promise<void>((resolve, reject) => {
    ws.onerror = () => reject(new Error('websocket failed'));
    ws.onopen = () =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data));
      if (msg.id === 1) resolve();
      else if (msg.method === 'eth_subscription') heads.push(msg.params.result);
    };
  });
  await subscribed;
  const until = async (n: number) => {
    for (let i = 0; i < 500 && heads.length < n; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(heads.length, n);
  };

  const snap = await call('evm_snapshot');
  const h0 = await height();
  const filter = await call('eth_newBlockFilter');
  await call('hardhat_mine', ['0x3']);
  assert.equal((await call('eth_getFilterChanges', [filter])).length, 3);
  await until(3);
  await call('evm_revert', [snap]);
  await call('eth_sendTransaction', [{ from, to: TO, value: '0x1' }]);
  const block = await call('eth_getBlockByNumber', [hex(await height()), false]);
  assert.equal(Number(block.number), h0 + 1);
  assert.deepEqual(await call('eth_getFilterChanges', [filter]), [block.hash]);
  await until(4);
  assert.deepEqual([Number(heads[3].number), heads[3].hash], [h0 + 1, block.hash]);
});

test('hardhat_reset / anvil_reset: back to the genesis state, snapshots gone; forking parameters are refused on a chain that is not a fork', async (t) => {
  const { banner } = await startDev(t);
  const { raw, call, height } = client(banner.evmUrl);
  const from = banner.accounts[0].evm;
  const genesisBalance = await call('eth_getBalance', [from, '0x0']);
  const snap = await call('evm_snapshot');
  await call('eth_sendTransaction', [{ from, to: TO, value: '0x5' }]);
  await call('evm_setAutomine', [false]);
  await call('evm_increaseTime', [3_600]);
  await call('hardhat_mine', ['0x4']);
  assert.ok((await height()) >= 6);

  const forking = await raw('hardhat_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }]);
  assert.equal(forking.error?.code, -32602);
  assert.match(forking.error!.message, /this dev chain is not a fork, and a reset cannot make it one/);
  assert.ok((await height()) >= 6, 'a refused reset changes nothing');

  const { instanceId } = await call('hardhat_metadata');
  assert.equal(await call('hardhat_reset', []), true);
  assert.ok((await height()) <= 1, 'at genesis (block 1 follows as at start)');
  assert.equal(await call('eth_getBalance', [TO, 'latest']), '0x0');
  assert.equal(await call('eth_getBalance', [from, 'latest']), genesisBalance);
  assert.equal(await call('hardhat_getAutomine'), true, "the mining mode of the node's start");
  assert.notEqual((await call('hardhat_metadata')).instanceId, instanceId);
  assert.equal(await call('evm_revert', [snap]), false);
  // the chain goes on from there, with the clock of the start
  const hash = await call('eth_sendTransaction', [{ from, to: TO, value: '0x2' }]);
  const receipt = await call('eth_getTransactionReceipt', [hash]);
  assert.equal(receipt.status, '0x1');
  const block = await call('eth_getBlockByNumber', [receipt.blockNumber, false]);
  assert.ok(Number(block.timestamp) < Date.now() / 1000 + 600);

  assert.equal(await call('anvil_reset', [{}]), null);
  assert.ok((await height()) <= 1);
  assert.equal(await call('eth_getBalance', [TO, 'latest']), '0x0');
});

test('a kept dev home restarted after snapshots, txs and reverts replays its blocks and serves the same chain', async (t) => {
  const home = tempHome(t);
  const first = await startDev(t, ['--home', home]);
  const { call, latest } = client(first.banner.evmUrl);
  const from = first.banner.accounts[0].evm;
  const snap = await call('evm_snapshot');
  await call('eth_sendTransaction', [{ from, to: TO, value: '0x9' }]);
  await call('hardhat_mine', ['0x2']);
  const inner = await call('evm_snapshot');
  await call('eth_sendTransaction', [{ from, to: TO, value: '0xa' }]);
  assert.equal(await call('evm_revert', [inner]), true);
  await call('eth_sendTransaction', [{ from, to: TO, value: '0xb' }]);
  assert.equal(await call('evm_revert', [snap]), true);
  await call('eth_sendTransaction', [{ from, to: TO, value: '0xc' }]);
  await call('eth_sendTransaction', [{ from, to: TO, value: '0xd' }]);
  const head = await latest();
  const balances: string[] = [];
  for (let h = 1; h <= Number(head.number); h++) balances.push(await call('eth_getBalance', [TO, hex(h)]));
  assert.equal(BigInt(balances.at(-1)!), 0x19n);
  await first.node.stopWithin(10_000);

  const second = await startDev(t, ['--home', home]);
  const again = client(second.banner.evmUrl);
  const restarted = await again.latest();
  assert.equal(restarted.hash, head.hash);
  assert.equal(restarted.stateRoot, head.stateRoot);
  for (let h = 1; h <= Number(head.number); h++)
    assert.equal(await again.call('eth_getBalance', [TO, hex(h)]), balances[h - 1], `height ${h}`);
  // a revert as the last thing before a stop
  const s = await again.call('evm_snapshot');
  await again.call('eth_sendTransaction', [{ from, to: TO, value: '0x1' }]);
  await again.call('hardhat_mine', ['0x2']);
  assert.equal(await again.call('evm_revert', [s]), true);
  assert.equal((await again.latest()).hash, head.hash);
  await second.node.stopWithin(10_000);

  const third = await startDev(t, ['--home', home]);
  const last = client(third.banner.evmUrl);
  assert.equal((await last.latest()).hash, head.hash);
  await last.call('eth_sendTransaction', [{ from, to: TO, value: '0x1' }]);
  assert.equal(Number((await last.latest()).number), Number(head.number) + 1);
  assert.equal(BigInt(await last.call('eth_getBalance', [TO, 'latest'])), 0x1an);
});
