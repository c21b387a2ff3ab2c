import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { Wallet, parseEther } from 'ethers';
import { AuthReader } from '../../../src/app/auth.ts';
import { BankReader } from '../../../src/app/bank.ts';
import { CosmosTxError } from '../../../src/app/cosmos-errors.ts';
import { EvmReader } from '../../../src/app/evm.ts';
import { accountFromPrivateKey, toAccAddress } from '../../../src/crypto/accounts.ts';
import type { ChainNode } from '../../../src/node/node.ts';
import { DEV_ACCOUNTS, makeHome, startNode, until } from '../../helpers/node.ts';

const CHAIN_ID = 'it-1';
const FEE = { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' };

async function signSend(
  key: Uint8Array,
  to: string,
  amount: string,
  seq: number,
  opts: { chainId?: string; fee?: typeof FEE; denom?: string; accountNumber?: number } = {},
): Promise<Uint8Array> {
  const wallet = await DirectSecp256k1Wallet.fromKey(key, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet);
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: to, amount: [{ denom: opts.denom ?? 'uchain', amount }] },
  };
  const signed = await client.sign(address, [msg], opts.fee ?? FEE, '', {
    accountNumber: BigInt(opts.accountNumber ?? 0),
    sequence: seq,
    chainId: opts.chainId ?? CHAIN_ID,
  });
  return TxRaw.encode(signed).finish();
}

async function included(node: ChainNode, hash: Uint8Array) {
  return until(() => {
    const r = node.modules.blocks.cosmosResultByHash(hash);
    return r && r.location.height <= node.modules.chain.latestHeight ? r : undefined;
  });
}

test('Cosmos MsgSend: signed with CosmJS, admitted, executed in a block, visible in wei; a fresh key associates on its first tx', async (t) => {
  const node = await startNode(makeHome(t));
  t.after(() => node.stop());
  const alice = DEV_ACCOUNTS[0];
  const aliceAcc = new AuthReader(node.modules.chain.state).account(alice.cosmosAddress)!;
  const fresh = accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x42)));
  const freshBech = toAccAddress(fresh.cosmosAddress);

  const raw = await signSend(alice.privateKey, freshBech, '5000000', Number(aliceAcc.sequence), {
    accountNumber: Number(aliceAcc.accountNumber),
  });
  const tx = node.modules.cosmosPool.checkTx(raw);
  const { result, location } = await included(node, tx.hash);
  assert.equal(result.code, 0, result.log);
  assert.ok(result.gasUsed > 0n && result.gasUsed <= 200000n);
  assert.ok(
    result.events.some(
      (e) =>
        e.type === 'transfer' && e.attributes.some((a) => a.key === 'recipient' && a.value === freshBech),
    ),
  );

  const bank = new BankReader(node.modules.chain.state);
  assert.equal(bank.uchain(fresh.cosmosAddress), 5_000_000n);
  const history = node.modules.chain.stateAt(location.height);
  // The fresh key has no association yet: its EVM address reads its cast, which is empty.
  assert.equal(
    await history.balance(fresh.cosmosAddress),
    5_000_000n * 10n ** 12n,
    'the cast of the cosmos address shows the same amount in wei',
  );
  assert.equal(await history.balance(alice.evmAddress), parseEther('10000') - 5_000_200n * 10n ** 12n);

  // Fund the fresh key's EVM address (its cast) over the EVM, then let it sign its first Cosmos tx.
  const ethFunder = new Wallet('0x' + Buffer.from(DEV_ACCOUNTS[1].privateKey).toString('hex'));
  const ethRaw = await ethFunder.signTransaction({
    chainId: 713714n,
    type: 2,
    to: '0x' + Buffer.from(fresh.evmAddress).toString('hex'),
    value: parseEther('1'),
    nonce: 0,
    gasLimit: 21000,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 0n,
  });
  const ethTx = await node.modules.mempool.checkTx(Uint8Array.from(Buffer.from(ethRaw.slice(2), 'hex')));
  await until(() => node.modules.blocks.receiptByEvmHash(ethTx.hash));
  const freshAcc = new AuthReader(node.modules.chain.state).account(fresh.cosmosAddress)!;
  const back = await signSend(fresh.privateKey, toAccAddress(alice.cosmosAddress), '1000', 0, {
    accountNumber: Number(freshAcc.accountNumber),
  });
  const backResult = await included(node, node.modules.cosmosPool.checkTx(back).hash);
  assert.equal(backResult.result.code, 0, backResult.result.log);
  const evm = new EvmReader(node.modules.chain.state);
  assert.deepEqual(evm.cosmosAddressOf(fresh.evmAddress), fresh.cosmosAddress);
  assert.deepEqual(evm.evmAddressOf(fresh.cosmosAddress), fresh.evmAddress);
  assert.equal(new BankReader(node.modules.chain.state).wei(fresh.evmAddress), 0n, 'cast balance moved');
  assert.equal(
    new BankReader(node.modules.chain.state).uchain(fresh.cosmosAddress),
    5_000_000n - 200n - 1000n + 1_000_000n,
  );
  assert.equal(new AuthReader(node.modules.chain.state).account(fresh.cosmosAddress)!.sequence, 1n);
});

test('bad Cosmos txs are refused at admission with SDK codes and leave the node unaffected', async (t) => {
  const node = await startNode(makeHome(t));
  t.after(() => node.stop());
  const alice = DEV_ACCOUNTS[0];
  const acc = new AuthReader(node.modules.chain.state).account(alice.cosmosAddress)!;
  const an = Number(acc.accountNumber);
  const to = toAccAddress(DEV_ACCOUNTS[2].cosmosAddress);
  const refuse = async (raw: Uint8Array | Promise<Uint8Array>, code: number, re: RegExp) => {
    const bytes = await raw;
    assert.throws(
      () => node.modules.cosmosPool.checkTx(bytes),
      (e: unknown) => e instanceof CosmosTxError && e.abciCode === code && re.test(e.message),
    );
  };
  await refuse(Uint8Array.of(1, 2, 3), 2, /tx parse error/);
  await refuse(
    signSend(alice.privateKey, to, '1', 5, { accountNumber: an }),
    32,
    /account sequence mismatch, expected 0, got 5/,
  );
  await refuse(
    signSend(alice.privateKey, to, '1', 0, { accountNumber: an, chainId: 'other-1' }),
    4,
    /signature verification failed; please verify account number \(0\), sequence \(0\) and chain-id \(it-1\)/,
  );
  await refuse(
    signSend(alice.privateKey, to, '1', 0, {
      accountNumber: an,
      fee: { amount: [{ denom: 'uchain', amount: '10' }], gas: '200000' },
    }),
    13,
    /insufficient fees; got: 10uchain required: 200uchain/,
  );
  await refuse(
    signSend(alice.privateKey, to, '1', 0, { accountNumber: an, denom: 'uatom' }),
    10,
    /unknown denom uatom: only uchain can be sent/,
  );
  const unknown = accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x77)));
  await refuse(signSend(unknown.privateKey, to, '1', 0), 9, /account chain1\w+ not found/);
  // The node still works: a valid tx goes through.
  const ok = node.modules.cosmosPool.checkTx(
    await signSend(alice.privateKey, to, '1', 0, { accountNumber: an }),
  );
  assert.equal((await included(node, ok.hash)).result.code, 0);
  // A tx whose message fails (more than the balance) is included with code 5, fee and sequence kept.
  const poor = accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x55)));
  const seed = node.modules.cosmosPool.checkTx(
    await signSend(alice.privateKey, toAccAddress(poor.cosmosAddress), '1000', 1, { accountNumber: an }),
  );
  await included(node, seed.hash);
  const poorAcc = new AuthReader(node.modules.chain.state).account(poor.cosmosAddress)!;
  const tooMuch = node.modules.cosmosPool.checkTx(
    await signSend(poor.privateKey, to, '900', 0, { accountNumber: Number(poorAcc.accountNumber) }),
  );
  const failed = await included(node, tooMuch.hash);
  assert.equal(failed.result.code, 5);
  assert.match(
    failed.result.log,
    /spendable balance 800uchain is smaller than 900uchain: insufficient funds/,
  );
  assert.equal(new BankReader(node.modules.chain.state).uchain(poor.cosmosAddress), 800n);
  assert.equal(new AuthReader(node.modules.chain.state).account(poor.cosmosAddress)!.sequence, 1n);
});

test('with create-empty-blocks = false a Cosmos tx alone wakes the producer', async (t) => {
  const node = await startNode(makeHome(t), { 'consensus.create-empty-blocks': 'false' });
  t.after(() => node.stop());
  const height = node.modules.chain.latestHeight;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(node.modules.chain.latestHeight, height, 'idle without transactions');
  const alice = DEV_ACCOUNTS[0];
  const acc = new AuthReader(node.modules.chain.state).account(alice.cosmosAddress)!;
  const tx = node.modules.cosmosPool.checkTx(
    await signSend(alice.privateKey, toAccAddress(DEV_ACCOUNTS[3].cosmosAddress), '7', Number(acc.sequence), {
      accountNumber: Number(acc.accountNumber),
    }),
  );
  const { result, location } = await included(node, tx.hash);
  assert.equal(result.code, 0);
  // the committed tx has left the pool, so nothing wakes the producer for another block
  await until(() => node.modules.cosmosPool.size === 0);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(node.modules.chain.latestHeight, location.height, 'idle again once the tx is committed');
});
