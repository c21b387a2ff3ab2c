/**
 * Network mode end to end: `chaind testnet --validators 4 --rpc-nodes 2` started as real processes
 * (each `chaind start` runs its own cometbft child), talked to over their EVM JSON-RPC and consensus
 * RPC by ethers and CosmJS as users would. One network serves every step below, in order.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { GasPrice, SigningStargateClient } from '@cosmjs/stargate';
import { Comet38Client, type comet38, WebsocketClient } from '@cosmjs/tendermint-rpc';
import {
  ContractFactory,
  Contract,
  JsonRpcProvider,
  Transaction,
  Wallet,
  getAddress,
  parseEther,
} from 'ethers';
import { accountFromPrivateKey, toAccAddress } from '../../src/crypto/accounts.ts';
import { artifacts } from '../helpers/dev-chain.ts';
import { installedBinaryPath } from '../../src/cometbft/binary.ts';
import { cometbftOrSkip, TestNetwork } from '../helpers/network.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';
import { stopReconnecting } from '../helpers/cosmjs-ws.ts';

const VALIDATORS = ['validator0', 'validator1', 'validator2', 'validator3'];
const LIVE = [...VALIDATORS, 'rpc0'];
const hexKey = (k: Uint8Array) => '0x' + Buffer.from(k).toString('hex');

// made at the top level (not in a hook), so its cleanup runs when the file's tests are done
const net: TestNetwork | undefined = existsSync(installedBinaryPath())
  ? await TestNetwork.create({ after }, { validators: 4, rpcNodes: 2 })
  : undefined;
for (const name of net ? LIVE : []) net!.start(name);

const providers: JsonRpcProvider[] = [];
function provider(name: string): JsonRpcProvider {
  const p = new JsonRpcProvider(net!.evmUrl(name), undefined, { staticNetwork: true, pollingInterval: 100 });
  providers.push(p);
  return p;
}
/** Hashes of the ERC20 scenario's txs, checked again on the late RPC node. */
const scenario: { txs: string[]; token?: string; height?: number } = { txs: [] };

after(() => {
  for (const p of providers) p.destroy();
});

/** Every node of `names` has the same block hash and state root at every height in [from, to]. */
async function assertSameChain(names: string[], from: number, to: number): Promise<void> {
  for (let h = from; h <= to; h++) {
    const ref = await net!.blockId(names[0], h);
    for (const n of names.slice(1)) assert.deepEqual(await net!.blockId(n, h), ref, `${n} at height ${h}`);
  }
}

test('blocks finalize with identical block hashes and app hashes on all five nodes; /net_info lists the peers', async (t) => {
  if (!cometbftOrSkip(t)) return;
  for (const n of LIVE) await net!.waitHeight(n, 6);
  await assertSameChain(LIVE, 1, 6);
  const info = await net!.consensus('rpc0', '/net_info');
  assert.equal(info.status, 200);
  const monikers = info.body.result.peers.map((p: any) => p.node_info.moniker).sort();
  assert.deepEqual(monikers, VALIDATORS);
  const status = await net!.consensus('validator0', '/status');
  assert.equal(status.body.result.node_info.network, net!.manifest.chain_id);
  assert.equal(status.body.result.sync_info.catching_up, false);
  // the EVM view: parentHash links to the previous CometBFT block hash, stateRoot is the header's app hash
  const b5 = (await net!.evm('rpc0', 'eth_getBlockByNumber', ['0x5', false])).result;
  assert.equal(b5.parentHash, (await net!.blockId('validator2', 4)).hash);
  const header = (await net!.consensus('validator1', '/block?height=5')).body.result.block.header;
  assert.equal(b5.stateRoot, '0x' + header.app_hash.toLowerCase());
  assert.equal(
    b5.hash,
    '0x' + (await net!.consensus('validator1', '/block?height=5')).body.result.block_id.hash.toLowerCase(),
  );
});

test('an ERC20 scenario sent through ethers to the RPC node is included, with identical receipts on every node', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const rpc = provider('rpc0');
  const owner = new Wallet(hexKey(DEV_ACCOUNTS[0].privateKey), rpc);
  const art = artifacts.TestToken;
  const factory = new ContractFactory(art.abi, art.bytecode, owner);
  const token = await factory.deploy('Net', 'NET', parseEther('1000000'));
  await token.waitForDeployment();
  scenario.token = await token.getAddress();
  scenario.txs.push(token.deploymentTransaction()!.hash);
  const erc20 = new Contract(scenario.token, art.abi, owner);
  let nonce = await owner.getNonce('pending');
  const sent = [];
  for (let i = 1; i <= 5; i++) {
    sent.push(
      await erc20.transfer(getAddress(hexKey(DEV_ACCOUNTS[i].evmAddress)), parseEther(String(i)), {
        nonce: nonce++,
      }),
    );
  }
  for (const tx of sent) {
    const r = await tx.wait();
    assert.equal(r.status, 1);
    scenario.txs.push(tx.hash);
  }
  const last = await rpc.getTransactionReceipt(scenario.txs.at(-1)!);
  scenario.height = last!.blockNumber;
  for (const n of LIVE) await net!.waitHeight(n, scenario.height);
  for (const hash of scenario.txs) {
    const ref = (await net!.evm('rpc0', 'eth_getTransactionReceipt', [hash])).result;
    assert.ok(ref, `receipt of ${hash}`);
    for (const n of VALIDATORS)
      assert.deepEqual((await net!.evm(n, 'eth_getTransactionReceipt', [hash])).result, ref, `${n}: ${hash}`);
  }
  const balance = await new Contract(scenario.token, art.abi, provider('validator3')).balanceOf(
    getAddress(hexKey(DEV_ACCOUNTS[5].evmAddress)),
  );
  assert.equal(balance, parseEther('5'));

  // a refusal on the node that received the tx is geth's, though CometBFT checked it
  const stale = await owner.signTransaction({
    to: owner.address,
    value: 1n,
    nonce: 0,
    gasLimit: 21_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 1n,
    chainId: (await rpc.getNetwork()).chainId,
  });
  const refused = await net!.evm('rpc0', 'eth_sendRawTransaction', [stale]);
  assert.equal(refused.error?.code, -32000);
  assert.match(refused.error!.message, /^nonce too low: next nonce \d+, tx nonce 0$/);
  // and a tx sent twice is `already known`, though CometBFT's own cache is what refuses it
  const again = await owner.signTransaction({
    to: owner.address,
    value: 1n,
    nonce: await owner.getNonce('pending'),
    gasLimit: 21_000n,
    maxFeePerGas: 10n ** 10n,
    maxPriorityFeePerGas: 1n,
    chainId: (await rpc.getNetwork()).chainId,
  });
  assert.ok((await net!.evm('rpc0', 'eth_sendRawTransaction', [again])).result);
  assert.deepEqual((await net!.evm('rpc0', 'eth_sendRawTransaction', [again])).error, {
    code: -32000,
    message: 'already known',
  });
  // once mined, the same bytes again are a used nonce (CometBFT's cache still refuses them first)
  const mined = await rpc.waitForTransaction(Transaction.from(again).hash!);
  const nonceOfAgain = Transaction.from(again).nonce;
  const next = await net!.evm('rpc0', 'eth_getTransactionCount', [owner.address, 'latest']);
  assert.ok(mined && Number(next.result) > nonceOfAgain);
  assert.deepEqual((await net!.evm('rpc0', 'eth_sendRawTransaction', [again])).error, {
    code: -32000,
    message: `nonce too low: next nonce ${Number(next.result)}, tx nonce ${nonceOfAgain}`,
  });
});

test('a CosmJS bank send to a validator is visible on the RPC node', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const alice = DEV_ACCOUNTS[6];
  const wallet = await DirectSecp256k1Wallet.fromKey(alice.privateKey, 'chain');
  const client = await SigningStargateClient.connectWithSigner(net!.rpcUrl('validator0'), wallet);
  t.after(() => client.disconnect());
  const fresh = accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x5e)));
  const sent = await client.sendTokens(
    toAccAddress(alice.cosmosAddress),
    toAccAddress(fresh.cosmosAddress),
    [{ denom: 'uchain', amount: '1234567' }],
    { amount: [{ denom: 'uchain', amount: '300' }], gas: '300000' },
  );
  assert.equal(sent.code, 0, sent.rawLog);
  await net!.waitHeight('rpc0', sent.height);
  const cast = getAddress(hexKey(fresh.cosmosAddress));
  const wei = (await net!.evm('rpc0', 'eth_getBalance', [cast, '0x' + sent.height.toString(16)])).result;
  assert.equal(BigInt(wei), 1_234_567n * 10n ** 12n);
});

test('CosmJS over the RPC node: fee "auto", a /websocket Tx subscription relayed to CometBFT, searchTx by sender and recipient', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const bob = DEV_ACCOUNTS[7];
  const bobBech = toAccAddress(bob.cosmosAddress);
  const recipient = toAccAddress(
    accountFromPrivateKey(Uint8Array.from(Buffer.alloc(32, 0x5f))).cosmosAddress,
  );
  const cleanups: (() => void)[] = [];
  t.after(() => cleanups.reverse().forEach((c) => c()));
  const ws = new WebsocketClient(net!.rpcUrl('rpc0').replace(/^http/, 'ws'));
  const comet = Comet38Client.create(ws);
  cleanups.push(() => {
    comet.disconnect();
    stopReconnecting(ws);
  });
  const txEvent = new Promise<comet38.TxEvent>((resolve, reject) =>
    comet.subscribeTx(`transfer.recipient='${recipient}'`).addListener({
      next: resolve,
      error: (e) => reject(new Error(`subscription failed: ${JSON.stringify(e)}`)),
    }),
  );
  // a header through the relay shows the subscriptions are in place before the send
  await new Promise<void>((resolve, reject) => {
    const headers = comet.subscribeNewBlockHeader();
    const listener = {
      next: () => {
        headers.removeListener(listener);
        resolve();
      },
      error: (e: unknown) => reject(new Error(`subscription failed: ${JSON.stringify(e)}`)),
    };
    headers.addListener(listener);
  });

  const wallet = await DirectSecp256k1Wallet.fromKey(bob.privateKey, 'chain');
  const signing = await SigningStargateClient.connectWithSigner(net!.rpcUrl('rpc0'), wallet, {
    gasPrice: GasPrice.fromString('0.001uchain'),
    broadcastPollIntervalMs: 200,
  });
  cleanups.push(() => signing.disconnect());
  const sent = await signing.sendTokens(bobBech, recipient, [{ denom: 'uchain', amount: '777' }], 'auto');
  assert.equal(sent.code, 0, sent.rawLog);

  const event = await txEvent;
  assert.equal(Buffer.from(event.hash).toString('hex').toUpperCase(), sent.transactionHash);
  assert.equal(event.height, sent.height);
  assert.ok(event.result.events.some((e) => e.type === 'coin_received'));
  // the node's event index holds the events it returned to CometBFT in FinalizeBlock
  assert.deepEqual(
    (await signing.searchTx([{ key: 'message.sender', value: bobBech }])).map((tx) => tx.hash),
    [sent.transactionHash],
  );
  const byRecipient = await signing.searchTx(`transfer.recipient='${recipient}'`);
  assert.deepEqual(
    byRecipient.map((tx) => tx.hash),
    [sent.transactionHash],
  );
  const action = byRecipient[0].events
    .find((e) => e.type === 'message' && e.attributes.some((a) => a.key === 'action'))
    ?.attributes.find((a) => a.key === 'action')?.value;
  assert.equal(action, '/cosmos.bank.v1beta1.MsgSend');
});

test('with one validator stopped the chain finalizes; with two it stops and says so; restarted, they catch up by block sync', async (t) => {
  if (!cometbftOrSkip(t)) return;
  await net!.stop('validator3');
  const h0 = await net!.height('validator0');
  await net!.waitHeight('validator0', h0 + 5);
  await net!.waitHeight('rpc0', h0 + 5);

  await net!.stop('validator2');
  // a height in flight may still commit; from then on nothing does
  await new Promise((r) => setTimeout(r, 2_000));
  const stuck = await net!.height('validator0');
  await new Promise((r) => setTimeout(r, 10_000));
  assert.equal(await net!.height('validator0'), stuck, 'no new height with 2 of 4 validators down');
  assert.equal(await net!.height('rpc0'), stuck);
  // a node whose chain does not move says so on every signal (the stall bound is 10 s here)
  let lag = await net!.consensus('validator0', '/lag_status');
  for (let i = 0; i < 25 && lag.status !== 503; i++) {
    await new Promise((r) => setTimeout(r, 200));
    lag = await net!.consensus('validator0', '/lag_status');
  }
  assert.equal(lag.status, 503, JSON.stringify(lag.body));
  const syncing = (await net!.evm('validator0', 'eth_syncing')).result;
  assert.equal(syncing.halted, true);
  assert.equal((await net!.consensus('validator0', '/status')).body.result.sync_info.catching_up, true);

  net!.start('validator2');
  net!.start('validator3');
  const observed: { lag: number; syncing: boolean; catchingUp: boolean }[] = [];
  const deadline = Date.now() + 90_000;
  for (;;) {
    // the signals first, the lag last: the lag only closes while it catches up, so a lag seen after
    // the signals was there when they answered
    const s = await net!.evm('validator3', 'eth_syncing').catch(() => undefined);
    const st = await net!.consensus('validator3', '/status').catch(() => undefined);
    const l = await net!.consensus('validator3', '/lag_status').catch(() => undefined);
    if (l && s && st?.body.result) {
      const lagNow = l.status === 200 ? Number(l.body.result.lag) : Infinity;
      observed.push({
        lag: lagNow,
        syncing: s.result !== false,
        catchingUp: st.body.result.sync_info.catching_up,
      });
      if (
        lagNow === 0 &&
        s.result === false &&
        !st.body.result.sync_info.catching_up &&
        (await net!.height('validator0')) > stuck + 3
      )
        break;
    }
    if (Date.now() > deadline) {
      // what the node said, so a failure here can be understood from the CI log alone
      const p = net!.processes.get('validator3');
      throw new Error(
        `validator3 did not catch up: ${JSON.stringify(observed.slice(-5))}; exit ${p?.child.exitCode}; ` +
          `last lines:\n${p?.lines.slice(-20).join('\n')}\nstderr: ${p?.stderr.slice(-2000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  // while it was behind, no signal said it was current
  // (a node within a few heights of its peers is current: consensus gossip closes such gaps)
  for (const o of observed) if (o.lag > 4) assert.ok(o.syncing && o.catchingUp, JSON.stringify(o));
  const top = Math.min(...(await Promise.all(LIVE.map((n) => net!.height(n)))));
  await assertSameChain(LIVE, Math.max(1, stuck - 3), top);
});

test('SIGKILL of a validator under transaction load: the handshake replays and it rejoins with identical app hashes', async (t) => {
  if (!cometbftOrSkip(t)) return;
  const rpc = provider('rpc0');
  const sender = new Wallet(hexKey(DEV_ACCOUNTS[7].privateKey), rpc);
  const to = getAddress(hexKey(DEV_ACCOUNTS[8].evmAddress));
  let nonce = await sender.getNonce('pending');
  const hashes: string[] = [];
  for (let i = 0; i < 30; i++) {
    hashes.push((await sender.sendTransaction({ to, value: 1_000n + BigInt(i), nonce: nonce++ })).hash);
    if (i === 10) await net!.stop('validator1', 'SIGKILL');
    await new Promise((r) => setTimeout(r, 50));
  }
  net!.start('validator1');
  for (const h of hashes) await rpc.waitForTransaction(h, 1, 60_000);
  const top = await net!.height('rpc0');
  await net!.waitHeight('validator1', top, 90_000);
  await assertSameChain(['rpc0', 'validator1', 'validator0'], 1, top);
  for (const h of hashes)
    assert.deepEqual(
      (await net!.evm('validator1', 'eth_getTransactionReceipt', [h])).result,
      (await net!.evm('rpc0', 'eth_getTransactionReceipt', [h])).result,
    );
});

test('an RPC node started 100 blocks late catches up by block sync, then answers history exactly as the others', async (t) => {
  if (!cometbftOrSkip(t)) return;
  await net!.waitHeight('validator0', 100, 180_000);
  const late = net!.start('rpc1');
  const seen: any[] = [];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const s = await net!.evm('rpc1', 'eth_syncing').catch(() => undefined);
    if (s?.result !== undefined) seen.push(s.result);
    const h = await net!.height('rpc1');
    if (h >= 100 && s?.result === false) break;
    if (Date.now() > deadline)
      // cometbft's own lines (relayed into the node's log) say why it stopped, when it did
      throw new Error(`rpc1 did not catch up (at ${h}); last lines:\n${late.lines.slice(-40).join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // while it synced, eth_syncing gave geth's progress object, with highestBlock ahead of currentBlock
  const progress = seen.filter((s) => s !== false);
  if (progress.length > 0) {
    const p = progress[0];
    assert.ok(Number(p.highestBlock) >= Number(p.currentBlock), JSON.stringify(p));
  }
  const top = await net!.height('rpc1');
  await assertSameChain(['rpc1', 'validator0'], 1, Math.min(top, 60));
  // history: balances, code, receipts and calls at old heights, as on a validator
  const owner = getAddress(hexKey(DEV_ACCOUNTS[0].evmAddress));
  for (const h of [1, 3, scenario.height!, scenario.height! + 1, top - 1]) {
    const tag = '0x' + h.toString(16);
    for (const [method, params] of [
      ['eth_getBalance', [owner, tag]],
      ['eth_getTransactionCount', [owner, tag]],
      ['eth_getCode', [scenario.token, tag]],
      [
        'eth_call',
        [{ to: scenario.token, data: '0x70a08231' + owner.slice(2).toLowerCase().padStart(64, '0') }, tag],
      ],
    ] as const) {
      assert.deepEqual(
        await net!.evm('rpc1', method, [...params]),
        await net!.evm('validator0', method, [...params]),
        `${method} at ${h}`,
      );
    }
  }
  for (const hash of scenario.txs)
    assert.deepEqual(
      (await net!.evm('rpc1', 'eth_getTransactionReceipt', [hash])).result,
      (await net!.evm('validator0', 'eth_getTransactionReceipt', [hash])).result,
    );
});
