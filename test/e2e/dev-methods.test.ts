/**
 * The dev chain's methods (anvil's and Hardhat's names) through HTTP against the real `chaind dev`:
 * accounts and signing, mining control, time, dropping a pooled tx, node identity; and a kept dev
 * home restarted after a mix of them serves the same chain.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Transaction, TypedDataEncoder, verifyMessage, verifyTypedData } from 'ethers';
import { startDev } from '../helpers/dev-banner.ts';
import { tempHome } from '../helpers/chaind.ts';
import { result, rpc } from '../helpers/json-rpc.ts';

function client(url: string) {
  const call = (method: string, params: unknown[] = []) => result(url, method, params);
  const latest = async () => call('eth_getBlockByNumber', ['latest', false]);
  return { raw: (method: string, params: unknown[] = []) => rpc(url, method, params), call, latest };
}

const TO = '0x' + '42'.repeat(20);

test('accounts and signing: eth_accounts, eth_sendTransaction with geth defaults, eth_signTransaction, eth_sign, personal_sign, eth_signTypedData_v4', async (t) => {
  const { banner } = await startDev(t);
  const { raw, call } = client(banner.evmUrl);
  const accounts = banner.accounts.map((a) => a.evm.toLowerCase());
  assert.deepEqual(await call('eth_accounts'), accounts);
  const from = accounts[0];

  // nothing but from and to: nonce, gas and EIP-1559 fees filled in
  const hash = await call('eth_sendTransaction', [{ from, to: TO, value: '0x5' }]);
  const tx = await call('eth_getTransactionByHash', [hash]);
  const receipt = await call('eth_getTransactionReceipt', [hash]);
  assert.equal(receipt.status, '0x1');
  assert.equal(tx.type, '0x2');
  assert.equal(tx.nonce, '0x0');
  assert.equal(BigInt(tx.gas), 21_000n, 'the estimate of a plain transfer');
  assert.equal(tx.from, from);
  // gasPrice: legacy; with an access list: EIP-2930; a creation without `to`
  const legacy = await call('eth_sendTransaction', [{ from, to: TO, gasPrice: '0x77359400' }]);
  assert.equal((await call('eth_getTransactionByHash', [legacy])).type, '0x0');
  const typed1 = await call('eth_sendTransaction', [
    { from, to: TO, gasPrice: '0x77359400', accessList: [] },
  ]);
  assert.equal((await call('eth_getTransactionByHash', [typed1])).type, '0x1');
  const create = await call('eth_sendTransaction', [
    { from, data: '0x600a600c600039600a6000f3602a60005260206000f3' },
  ]);
  const created = await call('eth_getTransactionReceipt', [create]);
  assert.equal(created.status, '0x1');
  assert.equal(await call('eth_getCode', [created.contractAddress, 'latest']), '0x602a60005260206000f3');
  assert.equal(await call('eth_getTransactionCount', [from, 'latest']), '0x4');

  // a reverting call is refused as eth_estimateGas refuses it
  const reverting = await raw('eth_sendTransaction', [{ from, data: '0x60006000fd' }]);
  assert.equal(reverting.error?.code, 3);
  // not an account of this node
  assert.deepEqual((await raw('eth_sendTransaction', [{ from: TO, to: from }])).error, {
    code: -32000,
    message: 'unknown account',
  });
  assert.equal((await raw('eth_sendTransaction', [{ to: from }])).error?.code, -32602);

  // signed, not sent: the bytes ethers decodes, from the right sender, sendable as they are
  const signed = await call('eth_signTransaction', [{ from: accounts[1], to: TO, value: '0x7' }]);
  const decoded = Transaction.from(signed);
  assert.equal(decoded.from?.toLowerCase(), accounts[1]);
  assert.equal(decoded.value, 7n);
  assert.equal(await call('eth_getTransactionCount', [accounts[1], 'latest']), '0x0');
  const sent = await call('eth_sendRawTransaction', [signed]);
  assert.equal((await call('eth_getTransactionReceipt', [sent])).status, '0x1');

  // messages: eth_sign(address, data) and personal_sign(data, address) sign the same EIP-191 digest
  const message = '0x' + Buffer.from('hello chaind').toString('hex');
  const sig1 = await call('eth_sign', [from, message]);
  const sig2 = await call('personal_sign', [message, from]);
  assert.equal(sig1, sig2);
  assert.equal(verifyMessage(Buffer.from('hello chaind'), sig1).toLowerCase(), from);
  // typed data, as an object and as its JSON text
  const domain = { name: 'Permit', version: '1', chainId: 713714, verifyingContract: TO };
  const types = {
    Mail: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
  };
  const value = { to: accounts[2], amount: '1000000000000000000' };
  const payload = TypedDataEncoder.getPayload(domain, types, value);
  const sig712 = await call('eth_signTypedData_v4', [from, payload]);
  assert.equal(verifyTypedData(domain, types, value, sig712).toLowerCase(), from);
  assert.equal(await call('eth_signTypedData_v4', [from, JSON.stringify(payload)]), sig712);
});

test('mining control: automine off and on, evm_mine, hardhat_mine and anvil_mine at an interval, interval mining, dropping a pooled tx', async (t) => {
  const { banner } = await startDev(t);
  const { raw, call, latest } = client(banner.evmUrl);
  const from = banner.accounts[0].evm;
  assert.equal(await call('hardhat_getAutomine'), true);
  assert.equal(await call('evm_setAutomine', [false]), null);
  assert.equal(await call('anvil_getAutomine'), false);
  const start = Number(await call('eth_blockNumber'));

  // automine off: the tx waits in the pool until a block is asked for
  const waiting = await call('eth_sendTransaction', [{ from, to: TO, value: '0x1' }]);
  assert.equal(await call('eth_getTransactionReceipt', [waiting]), null);
  assert.equal(Number(await call('eth_blockNumber')), start);
  assert.equal(await call('evm_mine'), '0x0');
  assert.equal(Number(await call('eth_blockNumber')), start + 1);
  assert.equal(
    (await call('eth_getTransactionReceipt', [waiting])).blockNumber,
    '0x' + (start + 1).toString(16),
  );

  // dropped before it is mined: never mined, unknown afterwards
  const dropped = await call('eth_sendTransaction', [{ from, to: TO, value: '0x2' }]);
  assert.equal(await call('hardhat_dropTransaction', [dropped]), true);
  assert.equal(await call('hardhat_dropTransaction', [dropped]), false);
  assert.equal(await call('anvil_dropTransaction', ['0x' + '11'.repeat(32)]), null);
  assert.equal(await call('eth_getTransactionByHash', [dropped]), null);

  // many blocks at once, `interval` seconds apart
  const before = await latest();
  assert.equal(await call('hardhat_mine', ['0x5', '0xa']), true);
  const after = await latest();
  assert.equal(Number(after.number), Number(before.number) + 5);
  const fourth = await call('eth_getBlockByNumber', ['0x' + (Number(after.number) - 1).toString(16), false]);
  assert.equal(Number(after.timestamp) - Number(fourth.timestamp), 10);
  assert.equal(await call('anvil_mine', [2]), null);
  assert.equal(Number((await latest()).number), Number(after.number) + 2);
  assert.equal((await raw('hardhat_mine', ['0x0'])).error?.code, -32602);
  // 1,000 empty blocks in one call
  assert.equal(await call('hardhat_mine', ['0x3e8']), true);
  assert.equal(Number((await latest()).number), Number(after.number) + 1002);

  // interval mining: blocks come by themselves, empty or not, until it is turned off
  assert.equal(await call('evm_setIntervalMining', [1]), null);
  const at = Number(await call('eth_blockNumber'));
  for (let i = 0; Number(await call('eth_blockNumber')) < at + 2; i++) {
    assert.ok(i < 200, 'interval mining made no blocks');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(await call('evm_setIntervalMining', [0]), null);

  // automine back on: a tx is mined before its send answers
  assert.equal(await call('evm_setAutomine', [true]), null);
  const mined = await call('eth_sendTransaction', [{ from, to: TO, value: '0x3' }]);
  assert.equal((await call('eth_getTransactionReceipt', [mined])).status, '0x1');
});

test('time: evm_increaseTime, evm_setNextBlockTimestamp, evm_mine(timestamp), a block timestamp interval; block times never go back', async (t) => {
  const { banner } = await startDev(t);
  const { raw, call, latest } = client(banner.evmUrl);
  const t0 = Number((await latest()).timestamp);
  assert.equal(await call('evm_increaseTime', [3600]), 3600);
  assert.equal(await call('anvil_increaseTime', ['0x3c']), 3660);
  await call('evm_mine');
  const t1 = Number((await latest()).timestamp);
  assert.ok(t1 >= t0 + 3660 && t1 < t0 + 3660 + 60, `${t1} is about ${t0} + 3660`);

  assert.equal(await call('evm_setNextBlockTimestamp', ['0x' + (t1 + 1000).toString(16)]), null);
  await call('evm_mine');
  assert.equal(Number((await latest()).timestamp), t1 + 1000);
  // the clock goes on from there
  await call('evm_mine');
  const t2 = Number((await latest()).timestamp);
  assert.ok(t2 >= t1 + 1000 && t2 < t1 + 1060, `${t2} follows ${t1 + 1000}`);
  await call('evm_mine', [t2 + 500]);
  assert.equal(Number((await latest()).timestamp), t2 + 500);
  assert.deepEqual((await raw('evm_setNextBlockTimestamp', [t2])).error, {
    code: -32602,
    message: `Timestamp error: ${t2} is lower than previous block's timestamp`,
  });

  assert.equal(await call('anvil_setBlockTimestampInterval', [7]), null);
  await call('anvil_mine', [2]);
  const b = await latest();
  const a = await call('eth_getBlockByNumber', ['0x' + (Number(b.number) - 1).toString(16), false]);
  assert.equal(Number(b.timestamp) - Number(a.timestamp), 7);
  assert.equal(Number(a.timestamp), t2 + 500 + 7);
  assert.equal(await call('anvil_removeBlockTimestampInterval'), true);
  assert.equal(await call('anvil_removeBlockTimestampInterval'), false);

  // a contract reads the moved time: TIMESTAMP in a call at `latest` is the latest block's
  const readsTimestamp = { [TO]: { code: '0x4260005260206000f3' } }; // TIMESTAMP, return it
  const latestTs = BigInt((await latest()).timestamp);
  assert.equal(BigInt(await call('eth_call', [{ to: TO }, 'latest', readsTimestamp])), latestTs);
});

test("identity: web3_clientVersion that Hardhat's network helpers accept, hardhat_metadata, anvil_nodeInfo", async (t) => {
  const { banner } = await startDev(t);
  const { call, latest } = client(banner.evmUrl);
  const version = await call('web3_clientVersion');
  assert.match(version, /^anvil-compatible chaind\/v\d+\.\d+\.\d+\//);
  const meta = await call('hardhat_metadata');
  const head = await latest();
  assert.equal(meta.clientVersion, version);
  assert.equal(meta.chainId, 713714);
  assert.match(meta.instanceId, /^0x[0-9a-f]{64}$/);
  assert.equal(meta.latestBlockNumber, Number(head.number));
  assert.equal(meta.latestBlockHash, head.hash);
  const info = await call('anvil_nodeInfo');
  assert.equal(info.currentBlockNumber, head.number);
  assert.equal(info.currentBlockHash, head.hash);
  assert.equal(info.currentBlockTimestamp, Number(head.timestamp));
  assert.equal(info.environment.chainId, 713714);
  assert.equal(info.environment.gasLimit, head.gasLimit);
});

test('a kept dev home restarted after mining, time and signing methods serves the same chain', async (t) => {
  const home = tempHome(t);
  const first = await startDev(t, ['--home', home]);
  const { call, latest } = client(first.banner.evmUrl);
  const from = first.banner.accounts[0].evm;
  await call('evm_increaseTime', [86_400]);
  await call('eth_sendTransaction', [{ from, to: TO, value: '0x9' }]);
  await call('evm_setAutomine', [false]);
  await call('eth_sendTransaction', [{ from, to: TO, value: '0xa' }]);
  await call('hardhat_mine', ['0x3', '0x3c']);
  await call('evm_setAutomine', [true]);
  const head = await latest();
  const balances: string[] = [];
  for (let h = 1; h <= Number(head.number); h++)
    balances.push(await call('eth_getBalance', [TO, '0x' + h.toString(16)]));
  assert.equal(BigInt(balances.at(-1)!), 0x13n);
  await first.node.stopWithin(10_000);

  const second = await startDev(t, ['--home', home]);
  const again = client(second.banner.evmUrl);
  const restarted = await again.latest();
  assert.equal(restarted.hash, head.hash);
  assert.equal(restarted.stateRoot, head.stateRoot);
  assert.equal(restarted.timestamp, head.timestamp);
  for (let h = 1; h <= Number(head.number); h++)
    assert.equal(
      await again.call('eth_getBalance', [TO, '0x' + h.toString(16)]),
      balances[h - 1],
      `height ${h}`,
    );
  // and it goes on from there
  await again.call('eth_sendTransaction', [{ from, to: TO, value: '0x1' }]);
  const next = await again.latest();
  assert.equal(Number(next.number), Number(head.number) + 1);
  assert.ok(Number(next.timestamp) >= Number(head.timestamp));
});
