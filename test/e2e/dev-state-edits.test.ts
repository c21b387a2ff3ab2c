/**
 * The dev chain's state edits and impersonation through HTTP against the real `chaind dev`: each
 * edit is visible to the very next call at `latest`, history before it stays, an impersonated
 * account sends without its key, a state dumped by one dev chain loads into another, and a kept home
 * whose state is rebuilt from its blocks alone (every block replayed, app hashes checked) serves the
 * same chain.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startDev } from '../helpers/dev-banner.ts';
import { tempHome } from '../helpers/chaind.ts';
import { result, rpc } from '../helpers/json-rpc.ts';

function client(url: string) {
  const call = (method: string, params: unknown[] = []) => result(url, method, params);
  return { raw: (method: string, params: unknown[] = []) => rpc(url, method, params), call };
}

const WHALE = '0x' + '5a'.repeat(20);
const TO = '0x' + '42'.repeat(20);
const CONTRACT = '0x' + 'c0'.repeat(20);
/** Returns storage slot 0 (PUSH0 SLOAD PUSH0 MSTORE PUSH1 32 PUSH0 RETURN). */
const RETURN_SLOT0 = '0x5f545f5260205ff3';
const slot = (n: number) => '0x' + n.toString(16).padStart(64, '0');

test('state edits: setBalance, addBalance, setNonce, setCode, setStorageAt, setNextBlockBaseFeePerGas, setCoinbase, setPrevRandao, evm_setBlockGasLimit under both names', async (t) => {
  const { banner } = await startDev(t);
  const { raw, call } = client(banner.evmUrl);
  const before = Number(await call('eth_blockNumber'));

  assert.equal(await call('hardhat_setBalance', [WHALE, '0xde0b6b3a7640000']), true);
  assert.equal(await call('eth_getBalance', [WHALE, 'latest']), '0xde0b6b3a7640000');
  const edited = Number(await call('eth_blockNumber'));
  assert.equal(edited, before + 1, 'an edit is a block of its own');
  assert.equal(await call('eth_getBalance', [WHALE, '0x' + before.toString(16)]), '0x0', 'history stays');
  assert.equal(await call('anvil_setBalance', [WHALE, '1000']), null, 'a decimal amount, as cast sends it');
  assert.equal(await call('eth_getBalance', [WHALE, 'latest']), '0x3e8');
  assert.equal(await call('anvil_addBalance', [WHALE, '0x18']), null);
  assert.equal(await call('eth_getBalance', [WHALE, 'latest']), '0x400');

  assert.equal(await call('hardhat_setNonce', [WHALE, '0x7']), true);
  assert.equal(await call('eth_getTransactionCount', [WHALE, 'latest']), '0x7');
  assert.equal(await call('anvil_setNonce', [WHALE, 9]), null);
  assert.equal(await call('eth_getTransactionCount', [WHALE, 'pending']), '0x9');

  assert.equal(await call('hardhat_setCode', [CONTRACT, RETURN_SLOT0]), true);
  assert.equal(await call('eth_getCode', [CONTRACT, 'latest']), RETURN_SLOT0);
  assert.equal(await call('hardhat_setStorageAt', [CONTRACT, '0x0', slot(0x2a)]), true);
  assert.equal(await call('eth_getStorageAt', [CONTRACT, '0x0', 'latest']), slot(0x2a));
  // the very next eth_call runs the new code over the new storage
  assert.equal(await call('eth_call', [{ to: CONTRACT }, 'latest']), slot(0x2a));
  assert.equal(await call('anvil_setStorageAt', [CONTRACT, '0x0', slot(7)]), true);
  assert.equal(await call('eth_call', [{ to: CONTRACT }]), slot(7));
  assert.equal(await call('anvil_setCode', [CONTRACT, '0x']), null);
  assert.equal(await call('eth_getCode', [CONTRACT, 'latest']), '0x');

  // the base fee of the next block, which then charges it
  assert.equal(await call('hardhat_setNextBlockBaseFeePerGas', ['0x3b9aca00']), true);
  const from = banner.accounts[0].evm;
  const hash = await call('eth_sendTransaction', [{ from, to: TO, value: '0x1' }]);
  const receipt = await call('eth_getTransactionReceipt', [hash]);
  const block = await call('eth_getBlockByNumber', [receipt.blockNumber, false]);
  assert.equal(block.baseFeePerGas, '0x3b9aca00');

  // COINBASE from the next block on, PREVRANDAO for the next block only: a contract returns them
  const PROBE = '0x' + 'd0'.repeat(20);
  // COINBASE PUSH0 MSTORE PREVRANDAO PUSH1 32 MSTORE PUSH1 64 PUSH0 RETURN
  await call('hardhat_setCode', [PROBE, '0x415f52446020526040' + '5ff3']);
  const FEE_COLLECTOR_WORD = await call('eth_call', [{ to: PROBE }]);
  assert.equal(FEE_COLLECTOR_WORD.slice(66), '0'.repeat(64), 'no PREVRANDAO set: zero');
  assert.equal(await call('hardhat_setCoinbase', [WHALE]), true);
  assert.equal(await call('hardhat_setPrevRandao', [slot(0x77)]), true);
  const probed = await call('eth_call', [{ to: PROBE }]);
  assert.equal(probed, '0x' + WHALE.slice(2).padStart(64, '0') + slot(0x77).slice(2));
  // a transaction in the next block sees both; the block after it, the coinbase only
  const CAPTURE = '0x' + 'd1'.repeat(20);
  // COINBASE PUSH0 SSTORE PREVRANDAO PUSH1 1 SSTORE STOP
  await call('hardhat_setCode', [CAPTURE, '0x415f554460015500']);
  await call('hardhat_setPrevRandao', [slot(0x78)]);
  await call('eth_sendTransaction', [{ from: banner.accounts[1].evm, to: CAPTURE, gas: '0x186a0' }]);
  assert.equal(
    await call('eth_getStorageAt', [CAPTURE, '0x0', 'latest']),
    '0x' + WHALE.slice(2).padStart(64, '0'),
  );
  assert.equal(await call('eth_getStorageAt', [CAPTURE, '0x1', 'latest']), slot(0x78));
  await call('eth_sendTransaction', [{ from: banner.accounts[1].evm, to: CAPTURE, gas: '0x186a0' }]);
  assert.equal(await call('eth_getStorageAt', [CAPTURE, '0x1', 'latest']), slot(0));
  assert.equal(await call('anvil_setCoinbase', [TO]), null);
  assert.equal((await call('eth_call', [{ to: PROBE }])).slice(0, 66), '0x' + TO.slice(2).padStart(64, '0'));

  // the block gas limit from the next block on: blocks report it, the pool and eth_call hold to it
  const limitBefore = (await call('eth_getBlockByNumber', ['latest', false])).gasLimit;
  assert.equal(await call('evm_setBlockGasLimit', ['0x2dc6c0']), true);
  const sent = await call('eth_sendTransaction', [{ from, to: TO, value: '0x1' }]);
  const limited = await call('eth_getBlockByNumber', [
    (await call('eth_getTransactionReceipt', [sent])).blockNumber,
    false,
  ]);
  assert.equal(limited.gasLimit, '0x2dc6c0');
  assert.equal(
    (await call('eth_getBlockByNumber', ['0x1', false])).gasLimit,
    limitBefore,
    'history keeps its limit',
  );
  const tooBig = await raw('eth_sendTransaction', [{ from, to: TO, gas: '0x2dc6c1' }]);
  assert.match(tooBig.error!.message, /exceeds block gas limit/);
  assert.equal((await raw('evm_setBlockGasLimit', ['0x0'])).error?.code, -32602);

  // what is wrong is named
  const short = await raw('hardhat_setStorageAt', [CONTRACT, '0x0', '0x2a']);
  assert.equal(short.error?.code, -32602);
  assert.match(short.error!.message, /exactly 32 bytes/);
  const badAmount = await raw('hardhat_setBalance', [WHALE, 'lots']);
  assert.equal(badAmount.error?.code, -32602);
  const big = await raw('hardhat_setNonce', [WHALE, '0x10000000000000000']);
  assert.equal(big.error?.code, -32602);
  // a pre-London rule, refused as both tools refuse it on an EIP-1559 chain
  for (const name of ['hardhat_setMinGasPrice', 'anvil_setMinGasPrice'])
    assert.deepEqual((await raw(name, ['0x1'])).error, {
      code: -32602,
      message: `${name} is not supported when EIP-1559 is active`,
    });
});

test('impersonation: an impersonated account sends without its key under both names; stopping ends it; auto-impersonation', async (t) => {
  const { banner } = await startDev(t);
  const { raw, call } = client(banner.evmUrl);
  await call('hardhat_setBalance', [WHALE, '0xde0b6b3a7640000']);
  // not impersonated: geth's refusal
  assert.equal(
    (await raw('eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x1' }])).error?.message,
    'unknown account',
  );

  assert.equal(await call('hardhat_impersonateAccount', [WHALE]), true);
  const hash = await call('eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x5' }]);
  const receipt = await call('eth_getTransactionReceipt', [hash]);
  assert.equal(receipt.status, '0x1');
  assert.equal(receipt.from, WHALE);
  const tx = await call('eth_getTransactionByHash', [hash]);
  assert.equal(tx.from, WHALE);
  assert.equal(tx.hash, hash);
  assert.equal(await call('eth_getBalance', [TO, 'latest']), '0x5');
  assert.equal(await call('eth_getTransactionCount', [WHALE, 'latest']), '0x1');
  // the block lists it among its transactions
  const block = await call('eth_getBlockByNumber', [receipt.blockNumber, false]);
  assert.deepEqual(block.transactions, [hash]);
  // a traced replay of the block runs it as sent by the whale
  const trace = await call('debug_traceTransaction', [hash, { tracer: 'callTracer' }]);
  assert.equal(trace.from, WHALE);

  assert.equal(await call('hardhat_stopImpersonatingAccount', [WHALE]), true);
  assert.equal(await call('hardhat_stopImpersonatingAccount', [WHALE]), false);
  assert.equal(
    (await raw('eth_sendTransaction', [{ from: WHALE, to: TO }])).error?.message,
    'unknown account',
  );

  assert.equal(await call('anvil_impersonateAccount', [WHALE]), null);
  await call('eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x1' }]);
  assert.equal(await call('anvil_stopImpersonatingAccount', [WHALE]), null);

  assert.equal(await call('anvil_autoImpersonateAccount', [true]), null);
  await call('eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x1' }]);
  assert.equal(await call('eth_getBalance', [TO, 'latest']), '0x7');
  await call('anvil_autoImpersonateAccount', [false]);
  assert.equal(
    (await raw('eth_sendTransaction', [{ from: WHALE, to: TO }])).error?.message,
    'unknown account',
  );
});

test('a kept dev home after a mix of every kind of dev method, rebuilt from its blocks alone (every block replayed, app hashes checked), serves the same chain and history', async (t) => {
  const home = tempHome(t);
  const first = await startDev(t, ['--home', home]);
  const { call } = client(first.banner.evmUrl);
  const dev0 = first.banner.accounts[0].evm;
  // state edits, impersonation, block context
  await call('hardhat_setBalance', [WHALE, '0xde0b6b3a7640000']);
  await call('hardhat_setCode', [CONTRACT, RETURN_SLOT0]);
  await call('hardhat_setStorageAt', [CONTRACT, '0x0', slot(5)]);
  await call('hardhat_impersonateAccount', [WHALE]);
  await call('eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x9' }]);
  await call('hardhat_setNonce', [TO, '0x3']);
  await call('hardhat_setNextBlockBaseFeePerGas', ['0x1']);
  await call('hardhat_setCoinbase', [CONTRACT]);
  await call('hardhat_setPrevRandao', [slot(3)]);
  await call('evm_setBlockGasLimit', ['0x1c9c380']);
  // time and mining
  await call('evm_increaseTime', [3600]);
  await call('eth_sendTransaction', [{ from: dev0, to: TO, value: '0x1' }]);
  await call('evm_setAutomine', [false]);
  await call('eth_sendTransaction', [{ from: dev0, to: TO, value: '0x2' }]);
  await call('hardhat_mine', ['0x3', '0x3c']);
  await call('evm_setAutomine', [true]);
  // a snapshot, blocks after it, a revert; then a state dump loaded back in
  const id = await call('evm_snapshot');
  await call('eth_sendTransaction', [{ from: dev0, to: TO, value: '0x100' }]);
  await call('hardhat_setBalance', [TO, '0x0']);
  assert.equal(await call('evm_revert', [id]), true);
  const dump = await call('anvil_dumpState');
  await call('hardhat_setStorageAt', [CONTRACT, '0x0', slot(6)]);
  await call('anvil_loadState', [dump]);
  await call('eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x4' }]);

  const head = await call('eth_getBlockByNumber', ['latest', false]);
  const reads = async (c: typeof call) => [
    await c('eth_getBalance', [WHALE, 'latest']),
    await c('eth_getBalance', [TO, 'latest']),
    await c('eth_getTransactionCount', [TO, 'latest']),
    await c('eth_call', [{ to: CONTRACT }, 'latest']),
    await c('eth_getBalance', [CONTRACT, 'latest']), // the coinbase's fees
  ];
  const served = await reads(call);
  assert.equal(served[3], slot(5), 'the load set the dumped slot back');
  const history: unknown[] = [];
  for (let h = 1; h <= Number(head.number); h++) {
    const n = '0x' + h.toString(16);
    const block = await call('eth_getBlockByNumber', [n, false]);
    history.push([block.hash, block.stateRoot, block.gasLimit, await call('eth_getBalance', [TO, n])]);
  }
  await first.node.stopWithin(10_000);

  // only the blocks are left: the next start re-executes every one of them, checking each app hash
  for (const dir of ['state_commit', 'pebbledb', 'evm_ss'])
    rmSync(join(home, 'data', dir), { recursive: true, force: true });
  const second = await startDev(t, ['--home', home]);
  const again = client(second.banner.evmUrl);
  const restarted = await again.call('eth_getBlockByNumber', ['latest', false]);
  assert.equal(restarted.hash, head.hash);
  assert.equal(restarted.stateRoot, head.stateRoot);
  assert.deepEqual(await reads(again.call), served);
  for (let h = 1; h <= Number(head.number); h++) {
    const n = '0x' + h.toString(16);
    const block = await again.call('eth_getBlockByNumber', [n, false]);
    assert.deepEqual(
      [block.hash, block.stateRoot, block.gasLimit, await again.call('eth_getBalance', [TO, n])],
      history[h - 1],
      `height ${h}`,
    );
  }
  assert.ok(
    second.node.lines.some((l) => /replayed block/.test(l)),
    'the blocks were replayed',
  );
});

test('state dumps: anvil_dumpState into anvil_loadState of another dev chain; --dump-state at stop and --load-state at start', async (t) => {
  const dir = tempHome(t);
  const file = join(dir, 'state.json');
  const first = await startDev(t, ['--dump-state', file]);
  const a = client(first.banner.evmUrl);
  await a.call('hardhat_setBalance', [WHALE, '0x1234']);
  await a.call('hardhat_setNonce', [WHALE, '0x2']);
  await a.call('hardhat_setCode', [CONTRACT, RETURN_SLOT0]);
  await a.call('hardhat_setStorageAt', [CONTRACT, '0x0', slot(0x99)]);
  const dumped: string = await a.call('anvil_dumpState');
  const json = JSON.parse(gunzipSync(Buffer.from(dumped.slice(2), 'hex')).toString('utf8'));
  assert.deepEqual(json.accounts[WHALE], { nonce: 2, balance: '0x1234', code: '0x', storage: {} });
  assert.equal(json.accounts[CONTRACT].storage[slot(0)], slot(0x99));
  assert.ok(json.accounts[first.banner.accounts[0].evm.toLowerCase()], 'the dev accounts are in it');

  const second = await startDev(t);
  const b = client(second.banner.evmUrl);
  assert.equal(await b.call('anvil_loadState', [dumped]), true);
  assert.equal(await b.call('eth_getBalance', [WHALE, 'latest']), '0x1234');
  assert.equal(await b.call('eth_getTransactionCount', [WHALE, 'latest']), '0x2');
  assert.equal(await b.call('eth_call', [{ to: CONTRACT }, 'latest']), slot(0x99));
  // plain JSON's hex loads too; what is not a dump is named
  const plain =
    '0x' +
    Buffer.from(
      JSON.stringify({ accounts: { [TO]: { nonce: 0, balance: '0x7', code: '0x', storage: {} } } }),
    ).toString('hex');
  assert.equal(await b.call('anvil_loadState', [plain]), true);
  assert.equal(await b.call('eth_getBalance', [TO, 'latest']), '0x7');
  const bad = await b.raw('anvil_loadState', [
    '0x' + Buffer.from('{"accounts":{"0x12":{}}}').toString('hex'),
  ]);
  assert.equal(bad.error?.code, -32602);
  assert.match(bad.error!.message, /0x12: not a 20-byte address/);

  // the first chain writes its state when it stops; a new one starts with it
  await first.node.stopWithin(10_000);
  const written = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(written.accounts[CONTRACT].code, RETURN_SLOT0);
  const third = await startDev(t, ['--load-state', file]);
  const c = client(third.banner.evmUrl);
  assert.equal(await c.call('eth_getBalance', [WHALE, 'latest']), '0x1234');
  assert.equal(await c.call('eth_call', [{ to: CONTRACT }, 'latest']), slot(0x99));
});
