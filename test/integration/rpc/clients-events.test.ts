/**
 * Event APIs of the client libraries, unchanged, against the node: ethers v6 `contract.on` over HTTP
 * (polling filters: eth_newFilter + eth_getFilterChanges), ethers WebSocketProvider `on('block')` and
 * `contract.on` (eth_subscribe newHeads / logs), viem `watchContractEvent` over HTTP (filters), and
 * viem's WebSocket transport (`watchBlockNumber`, `watchContractEvent` through eth_subscribe).
 * Each listener must see exactly the transfers sent, in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider } from 'ethers';
import { createPublicClient, defineChain, http as viemHttp, webSocket, type Hex } from 'viem';
import { artifacts } from '../../helpers/dev-chain.ts';
import { until } from '../../helpers/node.ts';
import { CHAIN_ID, rpcNode, wallets } from './rpc-helpers.ts';

type Transfer = [from: string, to: string, value: bigint];

test('ethers contract.on (HTTP and WebSocket), provider.on("block"), viem watchContractEvent', async (t) => {
  const { node, url } = await rpcNode(t);
  const provider = new JsonRpcProvider(url, undefined, {
    pollingInterval: 50,
    staticNetwork: true,
    cacheTimeout: -1,
  });
  t.after(() => provider.destroy());
  const wsProvider = new WebSocketProvider(node.modules.evmWs!.url);
  t.after(() => wsProvider.destroy());
  const owner = new Wallet(wallets[0].privateKey, provider);
  const [b, c] = [wallets[1].address, wallets[2].address];

  const factory = new ContractFactory(artifacts.TestToken.abi, artifacts.TestToken.bytecode, owner);
  const deployed = await factory.deploy('Test', 'TST', 1000n, { gasLimit: 2_000_000 });
  await deployed.waitForDeployment();
  const address = await deployed.getAddress();
  const overHttp = new Contract(address, artifacts.TestToken.abi, provider);
  const overWs = new Contract(address, artifacts.TestToken.abi, wsProvider);

  const seen = { http: [] as Transfer[], ws: [] as Transfer[], viem: [] as Transfer[] };
  const blocks: number[] = [];
  await overHttp.on('Transfer', (from: string, to: string, value: bigint) =>
    seen.http.push([from, to, value]),
  );
  await overWs.on('Transfer', (from: string, to: string, value: bigint) => seen.ws.push([from, to, value]));
  await wsProvider.on('block', (n: number) => blocks.push(n));

  const chain = defineChain({
    id: Number(CHAIN_ID),
    name: 'chaind',
    nativeCurrency: { name: 'chain', symbol: 'CHAIN', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const viem = createPublicClient({ chain, transport: viemHttp(url), pollingInterval: 50 });
  const unwatch = viem.watchContractEvent({
    address: address as Hex,
    abi: artifacts.TestToken.abi,
    eventName: 'Transfer',
    onLogs: (logs) => {
      for (const l of logs as unknown as { args: { from: string; to: string; value: bigint } }[])
        seen.viem.push([l.args.from, l.args.to, l.args.value]);
    },
  });

  // The listeners install their filters and subscriptions asynchronously: wait until the node has
  // answered them (its own request counters say so), so no transfer is sent before they listen.
  const answered = async (method: string) => {
    const metric = await node.metricsRegistry.getSingleMetric('chaind_rpc_requests_total')!.get();
    return metric.values
      .filter((v) => v.labels.method === method && v.labels.outcome === 'ok')
      .reduce((n, v) => n + v.value, 0);
  };
  let ready = false;
  for (const deadline = Date.now() + 10_000; !ready && Date.now() < deadline;) {
    ready = (await answered('eth_newFilter')) >= 2 && (await answered('eth_subscribe')) >= 2;
    if (!ready) await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(ready, 'listeners installed');

  const token = new Contract(address, artifacts.TestToken.abi, owner);
  const expected: Transfer[] = [];
  const minedIn: number[] = [];
  for (const [to, value] of [
    [b, 10n],
    [c, 20n],
    [b, 30n],
  ] as const) {
    const tx = await token.getFunction('transfer')(to, value, { gasLimit: 100_000 });
    minedIn.push((await tx.wait()).blockNumber);
    expected.push([owner.address, to, value]);
  }
  await until(() => seen.http.length >= 3 && seen.ws.length >= 3 && seen.viem.length >= 3);
  await until(() => blocks.length > 0 && blocks[blocks.length - 1] >= minedIn[2]);
  // a little longer, to catch a duplicate delivery
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(seen.http, expected);
  assert.deepEqual(seen.ws, expected);
  assert.deepEqual(seen.viem, expected);
  for (const n of minedIn) assert.ok(blocks.includes(n), `block ${n} reported over WebSocket`);
  assert.deepEqual(
    blocks,
    [...blocks].sort((x, y) => x - y),
  );

  // Unsubscribing is asynchronous in both libraries: let the node answer every eth_uninstallFilter
  // and eth_unsubscribe before the providers are destroyed (which would cancel them mid-flight).
  unwatch();
  await overHttp.removeAllListeners();
  await overWs.removeAllListeners();
  await wsProvider.removeAllListeners();
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    if ((await answered('eth_uninstallFilter')) >= 2 && (await answered('eth_unsubscribe')) >= 2) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(await answered('eth_uninstallFilter'), 2);
  assert.equal(await answered('eth_unsubscribe'), 2);
});

test('viem over WebSocket: watchBlockNumber and watchContractEvent use eth_subscribe', async (t) => {
  const { node, url } = await rpcNode(t);
  const provider = new JsonRpcProvider(url, undefined, {
    pollingInterval: 50,
    staticNetwork: true,
    cacheTimeout: -1,
  });
  t.after(() => provider.destroy());
  const owner = new Wallet(wallets[0].privateKey, provider);
  const factory = new ContractFactory(artifacts.TestToken.abi, artifacts.TestToken.bytecode, owner);
  const deployed = await factory.deploy('Test', 'TST', 1000n, { gasLimit: 2_000_000 });
  await deployed.waitForDeployment();
  const address = await deployed.getAddress();

  const chain = defineChain({
    id: Number(CHAIN_ID),
    name: 'chaind',
    nativeCurrency: { name: 'chain', symbol: 'CHAIN', decimals: 18 },
    rpcUrls: { default: { http: [url], webSocket: [node.modules.evmWs!.url] } },
  });
  const client = createPublicClient({ chain, transport: webSocket(node.modules.evmWs!.url) });
  const numbers: bigint[] = [];
  const transfers: Transfer[] = [];
  const unwatchBlocks = client.watchBlockNumber({ onBlockNumber: (n) => void numbers.push(n) });
  const unwatchEvents = client.watchContractEvent({
    address: address as Hex,
    abi: artifacts.TestToken.abi,
    eventName: 'Transfer',
    onLogs: (logs) => {
      for (const l of logs as unknown as { args: { from: string; to: string; value: bigint } }[])
        transfers.push([l.args.from, l.args.to, l.args.value]);
    },
  });
  const subscribed = async () => {
    const metric = await node.metricsRegistry.getSingleMetric('chaind_rpc_requests_total')!.get();
    return (
      metric.values.find((v) => v.labels.method === 'eth_subscribe' && v.labels.outcome === 'ok')?.value ?? 0
    );
  };
  for (const deadline = Date.now() + 10_000; (await subscribed()) < 2 && Date.now() < deadline;)
    await new Promise((r) => setTimeout(r, 20));
  assert.equal(await subscribed(), 2, 'viem subscribed to newHeads and logs');

  const token = new Contract(address, artifacts.TestToken.abi, owner);
  const tx = await token.getFunction('transfer')(wallets[1].address, 42n, { gasLimit: 100_000 });
  const mined = (await tx.wait()).blockNumber;
  await until(() => transfers.length >= 1 && numbers.some((n) => n >= BigInt(mined)));
  assert.deepEqual(transfers, [[owner.address, wallets[1].address, 42n]]);
  assert.deepEqual(
    numbers,
    [...numbers].sort((x, y) => (x < y ? -1 : 1)),
  );
  unwatchBlocks();
  unwatchEvents();
  const unsubscribed = async () => {
    const metric = await node.metricsRegistry.getSingleMetric('chaind_rpc_requests_total')!.get();
    return (
      metric.values.find((v) => v.labels.method === 'eth_unsubscribe' && v.labels.outcome === 'ok')?.value ??
      0
    );
  };
  for (const deadline = Date.now() + 10_000; (await unsubscribed()) < 2 && Date.now() < deadline;)
    await new Promise((r) => setTimeout(r, 20));
  assert.equal(await unsubscribed(), 2);
  (await client.transport.getRpcClient()).close();
});
