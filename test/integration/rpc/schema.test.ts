/**
 * Every result of a scenario through every served method validates against that method's result
 * schema in the Ethereum execution-apis OpenRPC bundle (`$ref`s into `#/components/schemas`). The
 * bundle is public data, not part of the product, so it is not kept in the repository: the test reads
 * it from the file $EXECUTION_APIS_SCHEMAS names and is skipped without it. The scenario has
 * blocks with legacy, 2930, 1559 and 7702 txs, a contract deployment and token transfers (receipts
 * and logs), state reads, and filters. Methods of the bundle this node does not serve (yet) are
 * listed, not validated. The same calls then show up in the dispatcher's metrics on the node's /metrics.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { getCreateAddress, Interface } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { CHAIN_ID, GWEI, hex, rpc, rpcNode, waitReceipt, wallets } from './rpc-helpers.ts';

const SCHEMAS = process.env.EXECUTION_APIS_SCHEMAS ?? '';
const skip =
  SCHEMAS === '' &&
  'EXECUTION_APIS_SCHEMAS is not set: set it to the path of execution-apis.json, the OpenRPC schemas ' +
    'of github.com/ethereum/execution-apis (its src/schemas, src/eth and src/debug) bundled into one ' +
    'JSON file; .ci/run sets it when that file is given to CI';
const token = new Interface(artifacts.TestToken.abi);
const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, chainId: CHAIN_ID, type: 2 };

interface Bundle {
  components: { schemas: Record<string, unknown> };
  methods: { name: string; result: { schema: unknown } }[];
}

/** Every `#/components/...` ref pointed at the bundle, which ajv holds under the id `apis`. */
function rebase(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(rebase);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => [
      k,
      k === '$ref' && typeof x === 'string' && x.startsWith('#/') ? 'apis' + x : rebase(x),
    ]),
  );
}

test('every served method’s results validate against the execution-apis schemas', { skip }, async (t) => {
  // a path that names nothing is a broken setup, not missing data: fail rather than skip
  assert.ok(existsSync(SCHEMAS), `EXECUTION_APIS_SCHEMAS names ${SCHEMAS}, which does not exist`);
  const bundle = JSON.parse(readFileSync(SCHEMAS, 'utf8')) as Bundle;
  // FilterResults is oneOf [hashes, logs]: an empty list is both, so `oneOf` would refuse `[]`, the
  // answer geth gives too when nothing happened. Either alternative is what the schema means.
  const results = bundle.components.schemas.FilterResults as { oneOf?: unknown; anyOf?: unknown };
  results.anyOf = results.oneOf;
  delete results.oneOf;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'apis', components: bundle.components });
  const validators = new Map(
    bundle.methods.map((m) => [m.name, ajv.compile(rebase(m.result.schema) as object)]),
  );

  const { node, url } = await rpcNode(t);
  const problems: string[] = [];
  const validated = new Map<string, number>();
  const unserved = new Set<string>();
  /** Calls `method`, validates a result against its schema, and returns it. */
  const call = async (method: string, ...params: unknown[]) => {
    const r = await rpc(url, method, params);
    if (r.error?.code === -32601) {
      unserved.add(method);
      return undefined;
    }
    assert.equal(r.error, undefined, `${method}(${JSON.stringify(params)}): ${JSON.stringify(r.error)}`);
    const validate = validators.get(method);
    if (validate) {
      if (!validate(r.result))
        problems.push(
          `${method}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(r.result).slice(0, 400)}`,
        );
      validated.set(method, (validated.get(method) ?? 0) + 1);
    }
    return r.result;
  };

  const [a, b, c, d, e] = wallets;
  const filters = {
    logs: await call('eth_newFilter', {}),
    blocks: await call('eth_newBlockFilter'),
    pending: await call('eth_newPendingTransactionFilter'),
  };
  const signed = [
    await a.signTransaction({
      chainId: CHAIN_ID,
      type: 0,
      nonce: 0,
      to: b.address,
      value: 7n,
      gasLimit: 21_000,
      gasPrice: 3n * GWEI,
    }),
    await c.signTransaction({
      chainId: CHAIN_ID,
      type: 1,
      nonce: 0,
      to: d.address,
      value: 8n,
      gasLimit: 30_000,
      gasPrice: 2n * GWEI,
      accessList: [{ address: d.address, storageKeys: ['0x' + '00'.repeat(31) + '01'] }],
    }),
    await e.signTransaction({
      ...fee,
      type: 4,
      nonce: 0,
      to: e.address,
      gasLimit: 100_000,
      authorizationList: [await e.authorize({ address: b.address, nonce: 1, chainId: CHAIN_ID })],
    }),
    await d.signTransaction({
      ...fee,
      nonce: 0,
      gasLimit: 2_000_000,
      data: artifacts.TestToken.bytecode + token.encodeDeploy(['T', 'T', 1000n]).slice(2),
    }),
  ];
  const hashes: string[] = [];
  // no block until the pending lookup is done: a block produced meanwhile would mine the txs
  await node.modules.engine.producer!.stop();
  for (const raw of signed) hashes.push(await call('eth_sendRawTransaction', raw));
  // A mempool tx is answered with null block fields (as geth answers), which the schema's
  // TransactionInfo does not allow: its signed-tx part is checked against TransactionSigned instead.
  const pending = (await rpc(url, 'eth_getTransactionByHash', [hashes[0]])).result;
  assert.deepEqual(
    [pending.blockHash, pending.blockNumber, pending.blockTimestamp, pending.transactionIndex],
    [null, null, null, null],
  );
  const signedTx = ajv.compile({ $ref: 'apis#/components/schemas/TransactionSigned' });
  assert.ok(signedTx(pending), ajv.errorsText(signedTx.errors));
  node.modules.engine.producer!.start();
  const receipts = await Promise.all(hashes.map((x) => waitReceipt(url, x)));
  const tokenAddress = getCreateAddress({ from: d.address, nonce: 0 });
  const transfer = await d.signTransaction({
    ...fee,
    nonce: 1,
    to: tokenAddress,
    gasLimit: 100_000,
    data: token.encodeFunctionData('transfer', [a.address, 5n]),
  });
  receipts.push(await waitReceipt(url, await call('eth_sendRawTransaction', transfer)));

  await t.test('blocks, transactions, receipts', async () => {
    for (const r of receipts) {
      await call('eth_getTransactionByHash', r.transactionHash);
      await call('eth_getTransactionReceipt', r.transactionHash);
      await call('eth_getBlockByHash', r.blockHash, true);
      await call('eth_getBlockByNumber', r.blockNumber, false);
      await call('eth_getBlockReceipts', r.blockNumber);
      await call('debug_getRawReceipts', r.blockNumber);
      await call('debug_getRawTransaction', r.transactionHash);
      await call('eth_getBlockTransactionCountByHash', r.blockHash);
      await call('eth_getBlockTransactionCountByNumber', r.blockNumber);
      await call('eth_getTransactionByBlockHashAndIndex', r.blockHash, r.transactionIndex);
      await call('eth_getTransactionByBlockNumberAndIndex', r.blockNumber, r.transactionIndex);
    }
    for (const ref of ['0x0', 'earliest', 'latest', 'safe', 'finalized', 'pending'])
      await call('eth_getBlockByNumber', ref, true);
    // not-found answers are null, which the schemas allow
    await call('eth_getBlockByNumber', '0xffffff', false);
    await call('eth_getTransactionByHash', '0x' + '11'.repeat(32));
    await call('eth_getTransactionReceipt', '0x' + '11'.repeat(32));
    await call('debug_getRawTransaction', '0x' + '11'.repeat(32));
    // not served, with the reason (no RLP block or header matches a CometBFT block hash)
    await call('debug_getRawBlock', 'latest');
    await call('debug_getRawHeader', 'latest');
  });

  await t.test('state, chain information, logs, filters', async () => {
    for (const w of [a, b, e]) {
      await call('eth_getBalance', w.address, 'latest');
      await call('eth_getTransactionCount', w.address, 'pending');
      await call('eth_getCode', w.address, 'latest');
    }
    await call('eth_getCode', tokenAddress, 'latest');
    await call('eth_getStorageAt', tokenAddress, '0x0', 'latest');
    await call('eth_getBalance', a.address, '0x0');
    for (const m of [
      'eth_chainId',
      'eth_syncing',
      'eth_coinbase',
      'eth_accounts',
      'eth_blockNumber',
      'net_version',
    ])
      await call(m);
    for (const m of ['eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee', 'eth_baseFee'])
      await call(m);
    await call('eth_getLogs', { fromBlock: '0x0', toBlock: 'latest' });
    await call('eth_getLogs', { blockHash: receipts[3].blockHash });
    await call('eth_getFilterChanges', filters.logs);
    await call('eth_getFilterLogs', filters.logs);
    await call('eth_getFilterChanges', filters.blocks);
    await call('eth_getFilterChanges', filters.pending);
    await call('eth_getFilterChanges', filters.pending);
    for (const id of Object.values(filters)) await call('eth_uninstallFilter', id);
    await call('eth_uninstallFilter', filters.logs);
    // methods of the simulation slice, validated once they are served
    const balanceOf = { to: tokenAddress, data: token.encodeFunctionData('balanceOf', [a.address]) };
    await call('eth_call', balanceOf, 'latest');
    await call('eth_estimateGas', { from: a.address, to: b.address, value: '0x1' });
    await call('eth_createAccessList', { from: a.address, ...balanceOf }, 'latest');
    await call('eth_feeHistory', '0x4', 'latest', [25, 75]);
  });

  await t.test('no result breaks its schema', () => {
    assert.deepEqual(problems, []);
    const never = bundle.methods.map((m) => m.name).filter((m) => !validated.has(m) && !unserved.has(m));
    t.diagnostic(`validated: ${[...validated.keys()].sort().join(', ')}`);
    t.diagnostic(`not served: ${[...unserved].sort().join(', ') || 'none'}`);
    t.diagnostic(`not exercised: ${never.join(', ')}`);
    // the filter methods and everything the earlier slices serve were exercised
    for (const m of [
      'eth_newFilter',
      'eth_newBlockFilter',
      'eth_newPendingTransactionFilter',
      'eth_getFilterChanges',
      'eth_getFilterLogs',
      'eth_uninstallFilter',
      'eth_getLogs',
      'eth_getBlockReceipts',
      'eth_getTransactionReceipt',
      'eth_sendRawTransaction',
      'debug_getRawReceipts',
      'debug_getRawTransaction',
    ])
      assert.ok(validated.has(m), m);
  });

  await t.test(
    'the dispatcher counted these calls on the node’s registry, labelled with chain_id',
    async () => {
      // the node's own Prometheus endpoint ([instrumentation] prometheus-listen-addr)
      const metrics = node.modules.metrics!;
      await rpc(url, 'eth_getBalance', ['0x12', 'latest']);
      await rpc(url, 'eth_definitelyNot', []);
      // a notification gets no answer, but its outcome is counted all the same
      const silent = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'eth_getBalance', params: ['0x12'] }),
      });
      assert.equal(await silent.text(), '');
      const text = await (await fetch(`http://127.0.0.1:${metrics.address.port}/metrics`)).text();
      const ok = validated.get('eth_getBalance')!;
      /** The value of one series, by its exact label set as prom-client writes it. */
      const sample = (series: string) =>
        text
          .split('\n')
          .find((l) => l.startsWith(series + ' '))
          ?.slice(series.length + 1);
      assert.deepEqual(
        [
          sample('chaind_rpc_requests_total{method="eth_getBalance",outcome="ok",chain_id="it-1"}'),
          sample('chaind_rpc_requests_total{method="eth_getBalance",outcome="invalid",chain_id="it-1"}'),
          sample('chaind_rpc_requests_total{method="unknown",outcome="invalid",chain_id="it-1"}'),
          sample('chaind_rpc_request_duration_seconds_count{chain_id="it-1",method="eth_getBalance"}'),
        ],
        // unknown: eth_definitelyNot and the bundle's methods this node does not serve
        [String(ok), '2', String(1 + unserved.size), String(ok + 2)],
      );
      assert.match(text, /# TYPE chaind_rpc_request_duration_seconds histogram/);
      assert.doesNotMatch(text, /eth_definitelyNot/);
    },
  );
});
