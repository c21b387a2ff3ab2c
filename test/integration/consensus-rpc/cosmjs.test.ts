/**
 * CosmJS against the consensus RPC, unchanged: StargateClient queries (abci_query over the gRPC
 * paths), SigningStargateClient's send (broadcast_tx_sync, then tx_search polling), and CosmJS's own
 * CometBFT 0.38 decoders over every read route, so the JSON shapes are checked by a third party.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { QueryClient, setupStakingExtension, SigningStargateClient, StargateClient } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { QueryBalanceRequest, QueryBalanceResponse } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { AuthReader } from '../../../src/app/auth.ts';
import { accountFromPrivateKey, toAccAddress, toValoperAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS } from '../../helpers/node.ts';
import { COSMOS_FEE, evmTransferTxRaw, hex } from './fixtures.ts';
import { atHeight, get, post, startRpcNode } from './helpers.ts';

const GENESIS_UCHAIN = '10000000000';

test('StargateClient and SigningStargateClient work against the consensus RPC', async (t) => {
  const { node, rpc } = await startRpcNode(t);
  await atHeight(node, 2);
  const alice = DEV_ACCOUNTS[0];
  const aliceBech = toAccAddress(alice.cosmosAddress);
  const client = await StargateClient.connect(rpc);
  t.after(() => client.disconnect());

  assert.equal(await client.getChainId(), 'it-1');
  const height = await client.getHeight();
  assert.ok(height >= 2 && height <= node.modules.chain.latestHeight);
  assert.deepEqual(await client.getBalance(aliceBech, 'uchain'), { denom: 'uchain', amount: GENESIS_UCHAIN });
  assert.deepEqual(await client.getBalance(aliceBech, 'other'), { denom: 'other', amount: '0' });
  assert.deepEqual(await client.getAllBalances(aliceBech), [{ denom: 'uchain', amount: GENESIS_UCHAIN }]);

  const stored = new AuthReader(node.modules.chain.state).account(alice.cosmosAddress)!;
  assert.deepEqual(await client.getAccount(aliceBech), {
    address: aliceBech,
    pubkey: null,
    accountNumber: stored.accountNumber,
    sequence: 0,
  });
  const stranger = toAccAddress(accountFromPrivateKey(new Uint8Array(32).fill(7)).cosmosAddress);
  assert.equal(await client.getAccount(stranger), null, 'NotFound maps to null in CosmJS');

  const block = await client.getBlock(2);
  const stored2 = node.modules.blocks.blockByHeight(2)!;
  assert.equal(block.id, hex(stored2.hash));
  assert.equal(block.header.height, 2);
  assert.equal(block.header.chainId, 'it-1');
  assert.equal(block.header.version.block, '11');
  assert.equal(
    new Date(block.header.time).getTime(),
    stored2.header.time.seconds * 1000 + stored2.header.time.nanos / 1e6,
  );

  // Staking queries through CosmJS's query extension.
  const comet = await Comet38Client.connect(rpc);
  t.after(() => comet.disconnect());
  const staking = QueryClient.withExtensions(comet, setupStakingExtension).staking;
  const { validators } = await staking.validators('BOND_STATUS_BONDED');
  assert.equal(validators.length, 1);
  assert.equal(validators[0].operatorAddress, toValoperAddress(alice.cosmosAddress));
  assert.equal(validators[0].description.moniker, 'it');
  assert.equal(
    (await staking.validator(validators[0].operatorAddress)).validator!.tokens,
    validators[0].tokens,
  );
  assert.deepEqual((await staking.validators('BOND_STATUS_UNBONDED')).validators, []);

  // A send signed and broadcast by CosmJS; it polls tx_search until the tx is in a block.
  const wallet = await DirectSecp256k1Wallet.fromKey(alice.privateKey, 'chain');
  const signing = await SigningStargateClient.connectWithSigner(rpc, wallet, {
    broadcastPollIntervalMs: 100,
  });
  t.after(() => signing.disconnect());
  const fresh = toAccAddress(accountFromPrivateKey(new Uint8Array(32).fill(9)).cosmosAddress);
  const sent = await signing.sendTokens(aliceBech, fresh, [{ denom: 'uchain', amount: '12345' }], COSMOS_FEE);
  assert.equal(sent.code, 0, sent.rawLog);
  assert.ok(sent.height >= 1);
  assert.deepEqual(await client.getBalance(fresh, 'uchain'), { denom: 'uchain', amount: '12345' });
  const fee = BigInt(COSMOS_FEE.amount[0].amount);
  assert.equal(
    (await client.getBalance(aliceBech, 'uchain')).amount,
    String(10_000_000_000n - 12_345n - fee),
  );
  const after = await client.getAccount(aliceBech);
  assert.equal(after!.sequence, 1);
  assert.deepEqual(after!.pubkey, {
    type: 'tendermint/PubKeySecp256k1',
    value: Buffer.from(alice.publicKey).toString('base64'),
  });
  const found = await client.getTx(sent.transactionHash);
  assert.equal(found!.height, sent.height);
  assert.equal(found!.code, 0);

  // The same balance query as raw abci_query, in both forms, at a historical height.
  const data = QueryBalanceRequest.encode({ address: aliceBech, denom: 'uchain' }).finish();
  const q = await get(
    rpc,
    `/abci_query?path="/cosmos.bank.v1beta1.Query/Balance"&data=0x${hex(data)}&height=1`,
  );
  const qp = await post(rpc, 'abci_query', {
    path: '/cosmos.bank.v1beta1.Query/Balance',
    data: hex(data),
    height: '1',
  });
  assert.deepEqual(qp.body.result, q.body.result);
  const r = q.body.result.response;
  assert.deepEqual(
    { ...r, value: undefined },
    {
      code: 0,
      log: '',
      info: '',
      index: '0',
      key: null,
      value: undefined,
      proofOps: null,
      height: '1',
      codespace: '',
    },
  );
  assert.deepEqual(QueryBalanceResponse.decode(Buffer.from(r.value, 'base64')).balance, {
    denom: 'uchain',
    amount: GENESIS_UCHAIN,
  });
  const unknown = await post(rpc, 'abci_query', { path: '/cosmos.nope.v1.Query/X', data: '' });
  assert.equal(unknown.body.result.response.code, 6);
  assert.equal(
    unknown.body.result.response.log,
    'unknown query path: /cosmos.nope.v1.Query/X: unknown request',
  );
  const proto = await post(rpc, 'abci_query', { path: 'constructor', data: '' });
  assert.equal(proto.body.result.response.code, 6, 'a prototype member is not a query path');
  const future = await post(rpc, 'abci_query', {
    path: '/cosmos.bank.v1beta1.Query/Balance',
    data: hex(data),
    height: '999999',
  });
  assert.equal(future.body.result.response.code, 26);
  const badAddress = await post(rpc, 'abci_query', {
    path: '/cosmos.bank.v1beta1.Query/Balance',
    data: hex(QueryBalanceRequest.encode({ address: 'cosmos1xyz', denom: 'uchain' }).finish()),
  });
  assert.equal(badAddress.body.result.response.code, 18);
  assert.match(
    badAddress.body.result.response.log,
    /^rpc error: code = InvalidArgument desc = invalid address "cosmos1xyz"/,
  );
});

test('CosmJS Comet38Client decodes every read route', async (t) => {
  const { node, rpc } = await startRpcNode(t);
  // An EVM tx so that tx, tx_search and block_results have something to decode.
  const tx = await evmTransferTxRaw(1, 2, 0);
  const comet = await Comet38Client.connect(rpc);
  t.after(() => comet.disconnect());
  const committed = await comet.broadcastTxCommit({ tx });
  assert.equal(committed.checkTx.code, 0);
  assert.equal(committed.txResult!.code, 0);
  const h = committed.height;
  await atHeight(node, h + 1);

  const status = await comet.status();
  assert.equal(status.nodeInfo.network, 'it-1');
  // CosmJS refuses an empty listen_addr: with no P2P listener it reads `none`
  assert.equal(status.nodeInfo.listenAddr, 'none');
  assert.equal(status.syncInfo.catchingUp, false);
  await comet.health();
  const b = await comet.block(h);
  assert.deepEqual(b.block.txs, [tx]);
  assert.equal((await comet.blockResults(h)).results[0].gasUsed, 21000n);
  const chain = await comet.blockchain(1, h);
  assert.equal(chain.blockMetas[0].header.height, h);
  const commit = await comet.commit(h);
  assert.equal(commit.canonical, true);
  assert.equal(commit.commit.signatures.length, 1);
  const vals = await comet.validators({ height: h });
  assert.equal(vals.total, 1);
  assert.equal((await comet.genesis()).chainId, 'it-1');
  const found = await comet.tx({ hash: committed.hash, prove: true });
  assert.equal(found.height, h);
  assert.deepEqual(found.proof!.data, tx);
  const search = await comet.txSearchAll({ query: `tx.height=${h}` });
  assert.equal(search.totalCount, 1);
  assert.equal((await comet.numUnconfirmedTxs()).total, 0);
  const info = await comet.abciInfo();
  assert.ok(info.lastBlockHeight! >= h);
  const sync = await comet.broadcastTxSync({ tx: await evmTransferTxRaw(1, 2, 1) });
  assert.equal(sync.code, 0);
  const async = await comet.broadcastTxAsync({ tx: await evmTransferTxRaw(1, 2, 2) });
  assert.equal(async.hash.length, 32);
});
