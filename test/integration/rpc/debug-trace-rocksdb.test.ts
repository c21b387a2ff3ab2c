/**
 * debug_trace* with `ss-backend = "rocksdb"`, whose engine has no synchronous reads: the same chain
 * served by an lmdb node and by a rocksdb node answers every trace identically, over HTTP.
 *
 * One block holds nine Ethereum txs that read what earlier ones wrote (nested calls with a caught
 * revert, a revert, out of gas, CREATE2 and self-destruct, an EIP-7702 delegation) and a Cosmos
 * MsgSend. The rocksdb node gets the lmdb node's blocks, not its state: its home holds the config and the block
 * store only, so at startup it re-executes every block into its own State Commit and (rocksdb) State
 * Store. Both nodes then hold the same blocks at the same heights, and with empty blocks off neither
 * moves, so `latest` is the same block on both.
 */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { getCreateAddress, Interface, type TransactionRequest } from 'ethers';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { AuthReader } from '../../../src/app/auth.ts';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import type { ChainNode } from '../../../src/node/node.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { DEV_ACCOUNTS, makeHome, startNode } from '../../helpers/node.ts';
import { CHAIN_ID, GWEI, result, waitReceipt, wallets } from './rpc-helpers.ts';

const QUIET = { 'consensus.create-empty-blocks': 'false' };
const caller = new Interface(artifacts.ReplayCaller.abi);
const counter = new Interface(artifacts.Counter.abi);

/** A signed bank MsgSend from dev account `from`, into `node`'s Cosmos mempool; returns its hash. */
async function cosmosSend(
  node: ChainNode,
  from: number,
  to: Uint8Array,
  amount: string,
): Promise<Uint8Array> {
  const key = DEV_ACCOUNTS[from];
  const acc = new AuthReader(node.modules.chain.state).account(key.cosmosAddress)!;
  const wallet = await DirectSecp256k1Wallet.fromKey(key.privateKey, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet);
  const signed = await client.sign(
    address,
    [
      {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: { fromAddress: address, toAddress: toAccAddress(to), amount: [{ denom: 'uchain', amount }] },
      },
    ],
    { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' },
    '',
    { accountNumber: acc.accountNumber, sequence: Number(acc.sequence), chainId: 'it-1' },
  );
  return node.modules.cosmosPool.checkTx(TxRaw.encode(signed).finish()).hash;
}
const fee = { type: 2, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, gasLimit: 3_000_000 };

test('ss-backend = rocksdb: debug_traceBlockByNumber, debug_traceTransaction and debug_traceCall answer as on lmdb', async (t) => {
  const lmdbHome = makeHome(t);
  let lmdb = await startNode(lmdbHome, QUIET);
  t.after(() => lmdb.stop());
  let url = lmdb.modules.evmHttp!.url;
  const nonces = new Map<number, number>();
  const send = async (w: number, tx: TransactionRequest): Promise<string> => {
    const nonce = nonces.get(w) ?? 0;
    nonces.set(w, nonce + 1);
    const raw = await wallets[w].signTransaction({ chainId: CHAIN_ID, ...fee, nonce, ...tx });
    return result(url, 'eth_sendRawTransaction', [raw]);
  };

  const callee = getCreateAddress({ from: wallets[0].address, nonce: 0 });
  await waitReceipt(url, await send(0, { data: artifacts.ReplayCallee.bytecode }));
  const deployed = await waitReceipt(
    url,
    await send(0, { data: artifacts.ReplayCaller.bytecode + caller.encodeDeploy([callee]).slice(2) }),
  );
  const to = deployed.contractAddress;
  const counterAt = await waitReceipt(url, await send(5, { data: artifacts.Counter.bytecode }));
  // one block of them all, reading what earlier txs of the block wrote, with a Cosmos tx in between
  await lmdb.modules.engine.producer!.stop();
  const auth = await wallets[6].authorize({
    address: counterAt.contractAddress,
    nonce: 1,
    chainId: CHAIN_ID,
  });
  const hashes = [
    await send(0, { to, data: caller.encodeFunctionData('nested', [3n]) }),
    await send(1, { to: wallets[2].address, value: 10n ** 15n }),
    await send(2, { to, data: caller.encodeFunctionData('fill', [4n]) }),
    await send(0, { to, data: caller.encodeFunctionData('nested', [7n]) }),
    await send(1, { to, data: caller.encodeFunctionData('mustFail') }),
    await send(3, {
      to,
      value: 1000n,
      data: caller.encodeFunctionData('spawnAndDestroy', [`0x${'11'.repeat(32)}`]),
    }),
    await send(2, { to, data: caller.encodeFunctionData('fill', [200n]), gasLimit: 200_000 }),
    await send(6, {
      type: 4,
      to: wallets[6].address,
      data: counter.encodeFunctionData('increment'),
      authorizationList: [auth],
    }),
  ];
  const cosmosHash = await cosmosSend(lmdb, 7, DEV_ACCOUNTS[0].cosmosAddress, '1000');
  hashes.push(await send(0, { to, data: caller.encodeFunctionData('nested', [9n]) }));
  lmdb.modules.engine.producer!.start();
  const receipts = [];
  for (const h of hashes) receipts.push(await waitReceipt(url, h));
  assert.deepEqual(
    receipts.map((r) => r.status),
    ['0x1', '0x1', '0x1', '0x1', '0x0', '0x1', '0x0', '0x1', '0x1'],
  );
  const block = receipts[0].blockNumber;
  assert.ok(
    receipts.every((r) => r.blockNumber === block),
    'one block',
  );
  assert.equal(lmdb.modules.blocks.cosmosResultByHash(cosmosHash)?.location.height, Number(block));
  const latest = Number(await result(url, 'eth_blockNumber'));
  await lmdb.stop();

  // the rocksdb node: the lmdb node's config and block store, no state
  const rocksHome = makeHome(t);
  const copy = (p: string) =>
    cpSync(join(lmdbHome, p), join(rocksHome, p), { recursive: true, filter: (f) => basename(f) !== 'LOCK' });
  copy('config');
  copy('data/blockstore');
  copy('data/priv_validator_state.json');
  const rocks = await startNode(rocksHome, { ...QUIET, 'state-store.ss-backend': 'rocksdb' });
  t.after(() => rocks.stop());
  assert.equal(
    await rocks.modules.ss.syncReaderAt?.(2),
    undefined,
    'the rocksdb State Store reads asynchronously only',
  );
  lmdb = await startNode(lmdbHome, QUIET);
  url = lmdb.modules.evmHttp!.url;
  const urls = { lmdb: url, rocksdb: rocks.modules.evmHttp!.url };
  assert.equal(Number(await result(urls.rocksdb, 'eth_blockNumber')), latest);

  /** The same call on both nodes: both succeed, with equal results. */
  const same = async (method: string, params: unknown[]) => {
    const [a, b] = await Promise.all([
      result(urls.lmdb, method, params),
      result(urls.rocksdb, method, params),
    ]);
    assert.deepEqual(b, a, `${method} ${JSON.stringify(params)}`);
    return a;
  };

  assert.equal(Number(block), latest);
  for (const tracer of [{}, { tracer: 'callTracer' }, { tracer: 'prestateTracer' }]) {
    const top = await same('debug_traceBlockByNumber', ['latest', tracer]);
    assert.equal(top.length, receipts.length);
    assert.ok(top.every((e: any) => e.result !== undefined && e.error === undefined));
    await same('debug_traceBlockByNumber', [deployed.blockNumber, tracer]);
  }
  for (const r of receipts) {
    const trace = await same('debug_traceTransaction', [r.transactionHash]);
    assert.equal(trace.failed, r.status === '0x0');
    const calls = await same('debug_traceTransaction', [r.transactionHash, { tracer: 'callTracer' }]);
    assert.equal(calls.gasUsed, r.gasUsed);
  }
  const call = { from: wallets[4].address, to, data: caller.encodeFunctionData('nested', [5n]) };
  for (const at of ['latest', counterAt.blockNumber, deployed.blockNumber]) {
    await same('debug_traceCall', [call, at]);
    await same('debug_traceCall', [call, at, { tracer: 'callTracer' }]);
  }
});
