/**
 * CosmJS end to end against a spawned `chaind dev`: a send with `fee: "auto"` (Simulate through
 * abci_query), `searchTx` by sender and by recipient (tx_search over the event index), and
 * `subscribeNewBlockHeader` / `subscribeTx` through CosmJS's WebsocketClient on the consensus RPC's
 * `/websocket`; the REST and gRPC forms of Simulate and the tx search answer the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { credentials, makeGenericClientConstructor, Metadata } from '@grpc/grpc-js';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { GasPrice, SigningStargateClient, StargateClient } from '@cosmjs/stargate';
import { Comet38Client, WebsocketClient } from '@cosmjs/tendermint-rpc';
import { stopReconnecting } from '../helpers/cosmjs-ws.ts';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { Stream } from 'xstream';
import { accountFromPrivateKey, toAccAddress } from '../../src/crypto/accounts.ts';
import { serviceDefinition, SERVICES } from '../../src/rpc/grpc/services.ts';
import { ChaindProcess, tempHome } from '../helpers/chaind.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

/** Every value a stream delivers, kept; `waitFor` resolves once they satisfy a predicate. */
function collect<T>(stream: Stream<T>) {
  const items: T[] = [];
  let failure: Error | undefined;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  stream.addListener({
    next: (v) => {
      items.push(v);
      wake();
    },
    error: (e) => {
      failure = new Error(`subscription failed: ${JSON.stringify(e)}`);
      wake();
    },
    complete: () => {
      failure = new Error('subscription completed early');
      wake();
    },
  });
  const waitFor = async (done: (items: T[]) => boolean): Promise<T[]> => {
    while (!done(items)) {
      if (failure) throw failure;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
    return items;
  };
  return { items, waitFor };
}

async function endpoint(node: ChaindProcess, name: string): Promise<string> {
  const line = await node.waitForLine((l) => l.trimStart().startsWith(name));
  return line.trim().split(/\s+/).pop()!;
}

test('CosmJS: sendTokens with fee "auto", searchTx by sender and recipient, block header and tx subscriptions', async (t) => {
  const node = new ChaindProcess(['dev', '--home', tempHome(t)]);
  // cleanups run newest first, the node last (a client whose server is gone would reconnect forever)
  const cleanups: (() => unknown)[] = [() => node.stop('SIGKILL')];
  t.after(async () => {
    for (const c of cleanups.reverse()) await c();
  });
  const rpc = await endpoint(node, 'consensus RPC');
  const rest = await endpoint(node, 'REST');
  const grpcAddress = await endpoint(node, 'gRPC');

  const alice = DEV_ACCOUNTS[0];
  const aliceBech = toAccAddress(alice.cosmosAddress);
  const recipient = toAccAddress(accountFromPrivateKey(new Uint8Array(32).fill(0x33)).cosmosAddress);

  // Subscriptions first, so the send's block and tx are among what they receive.
  const ws = new WebsocketClient(rpc.replace(/^http/, 'ws'));
  const comet = Comet38Client.create(ws);
  cleanups.push(() => {
    comet.disconnect();
    stopReconnecting(ws);
  });
  const headers = collect(comet.subscribeNewBlockHeader());
  const txEvents = collect(comet.subscribeTx(`transfer.recipient='${recipient}'`));
  // a subscription whose condition no tx meets receives nothing
  const unmatched = collect(comet.subscribeTx(`transfer.recipient='${aliceBech}'`));
  // a request after the subscribes on the same socket: once answered, they are in place
  await comet.status();

  const wallet = await DirectSecp256k1Wallet.fromKey(alice.privateKey, 'chain');
  const signing = await SigningStargateClient.connectWithSigner(rpc, wallet, {
    gasPrice: GasPrice.fromString('0.001uchain'),
    broadcastPollIntervalMs: 100,
  });
  cleanups.push(() => signing.disconnect());
  const sent = await signing.sendTokens(aliceBech, recipient, [{ denom: 'uchain', amount: '4242' }], 'auto');
  assert.equal(sent.code, 0, sent.rawLog);
  assert.ok(
    sent.gasUsed > 0n && sent.gasUsed <= sent.gasWanted,
    `gas used ${sent.gasUsed} of ${sent.gasWanted}`,
  );

  const client = await StargateClient.connect(rpc);
  cleanups.push(() => client.disconnect());
  assert.deepEqual(await client.getBalance(recipient, 'uchain'), { denom: 'uchain', amount: '4242' });

  // searchTx by sender and by recipient find the send, with the SDK's events
  const bySender = await client.searchTx([{ key: 'message.sender', value: aliceBech }]);
  assert.deepEqual(
    bySender.map((tx) => tx.hash),
    [sent.transactionHash],
  );
  const byRecipient = await client.searchTx([{ key: 'transfer.recipient', value: recipient }]);
  assert.equal(byRecipient.length, 1);
  assert.equal(byRecipient[0].hash, sent.transactionHash);
  assert.equal(byRecipient[0].height, sent.height);
  const types = byRecipient[0].events.map((e) => e.type);
  for (const type of ['coin_spent', 'coin_received', 'transfer', 'message', 'tx'])
    assert.ok(types.includes(type), `event ${type} in ${types.join(', ')}`);
  const action = byRecipient[0].events
    .find((e) => e.type === 'message' && e.attributes.some((a) => a.key === 'action'))
    ?.attributes.find((a) => a.key === 'action')?.value;
  assert.equal(action, '/cosmos.bank.v1beta1.MsgSend');
  assert.deepEqual(await client.searchTx(`transfer.recipient='${aliceBech}'`), []);
  assert.deepEqual(
    (await client.searchTx(`tx.height=${sent.height} AND message.sender='${aliceBech}'`)).map((t) => t.hash),
    [sent.transactionHash],
  );

  // the subscriptions received real events: every header up to the send's block, in order, and the
  // send's tx
  const seen = await headers.waitFor((h) => h.some((x) => x.height >= sent.height));
  seen.forEach((h, i) => i === 0 || assert.equal(h.height, seen[i - 1].height + 1));
  assert.equal(seen[0].chainId, 'chaind-dev');
  const [txEvent] = await txEvents.waitFor((e) => e.length >= 1);
  assert.equal(Buffer.from(txEvent.hash).toString('hex').toUpperCase(), sent.transactionHash);
  assert.equal(txEvent.height, sent.height);
  assert.equal(txEvent.result.code, 0);
  assert.ok(txEvent.result.events.some((e) => e.type === 'transfer'));
  // a request on the same socket: its answer comes after every event already published
  await comet.status();
  assert.equal(txEvents.items.length, 1);
  assert.deepEqual(unmatched.items, []);

  // REST: the same search, and a simulation of an unsigned tx as CosmJS builds it
  const restSearch: any = await (
    await fetch(
      `${rest}/cosmos/tx/v1beta1/txs?query=${encodeURIComponent(`transfer.recipient='${recipient}'`)}`,
    )
  ).json();
  assert.equal(restSearch.total, '1');
  assert.equal(restSearch.tx_responses[0].txhash, sent.transactionHash);
  const bad = await fetch(`${rest}/cosmos/tx/v1beta1/txs?query=${encodeURIComponent("a.b < 'x'")}`);
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as any).message, "query: a.b < needs a number, got 'x'");
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: aliceBech, toAddress: recipient, amount: [{ denom: 'uchain', amount: '1' }] },
  };
  const signedTx = await signing.sign(
    aliceBech,
    [msg],
    { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' },
    '',
  );
  const simulated: any = await (
    await fetch(`${rest}/cosmos/tx/v1beta1/simulate`, {
      method: 'POST',
      body: JSON.stringify({ tx_bytes: Buffer.from(TxRaw.encode(signedTx).finish()).toString('base64') }),
    })
  ).json();
  assert.equal(simulated.gas_info.gas_wanted, '200000');
  assert.ok(Number(simulated.gas_info.gas_used) > 0, JSON.stringify(simulated));
  assert.ok(simulated.result.events.some((e: any) => e.type === 'transfer'));

  // gRPC GetTxsEvent: the same search
  const TX = SERVICES.find((s) => s.name === 'cosmos.tx.v1beta1.Service')!;
  const Client = makeGenericClientConstructor(serviceDefinition(TX), 'tx');
  const grpc = new Client(grpcAddress, credentials.createInsecure()) as any;
  cleanups.push(() => grpc.close());
  const got: any = await new Promise((resolve, reject) =>
    grpc.GetTxsEvent(
      { query: `message.sender='${aliceBech}'`, events: [], orderBy: 0, page: 0n, limit: 0n },
      new Metadata(),
      (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res)),
    ),
  );
  assert.equal(got.total, 1n);
  assert.equal(got.txResponses[0].txhash, sent.transactionHash);
  assert.equal(got.txs.length, 1);
});
