/**
 * Every consensus RPC route in both forms (GET /route?… and JSON-RPC POST /) against a real node.
 * Empty blocks are off and timeout-commit is 1 s, so the chain only moves when this file sends txs:
 * block 1 holds tx1, block 2 holds tx2 and tx3, and the answers are exact and repeatable.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  type Commit,
  merkleInnerHash,
  merkleLeafHash,
  precommitSignBytes,
  txHash,
} from '../../../src/codec/index.ts';
import { blockIdOf } from '../../../src/producer/producer.ts';
import { ed25519FromJson, ed25519Verify, nodeIdOf } from '../../../src/crypto/node-keys.ts';
import { until } from '../../helpers/node.ts';
import { b64, evmTransferTxRaw, hex } from './fixtures.ts';
import { get, post, type RpcNode, startRpcNode } from './helpers.ts';
import { ADDRESS, assertShape, B64, HASH, INT, TIME } from './shape.ts';

let n: RpcNode;
let tx1: Uint8Array;
let tx2: Uint8Array;
let tx3: Uint8Array;

/** The cases below run in order, as subtests of one test that owns the node. */
const cases: [string, () => Promise<void>][] = [];
const step = (name: string, fn: () => Promise<void>) => cases.push([name, fn]);

/** Calls a route in both forms, checks the envelopes, and returns the (identical) result. */
async function both(route: string, query: string, params: Record<string, unknown>): Promise<any> {
  const g = await get(n.rpc, `/${route}${query ? `?${query}` : ''}`);
  const p = await post(n.rpc, route, params, 'req-7');
  assert.equal(g.status, 200, JSON.stringify(g.body));
  assert.equal(p.status, 200, JSON.stringify(p.body));
  assert.deepEqual(Object.keys(g.body).sort(), ['id', 'jsonrpc', 'result']);
  assert.equal(g.body.jsonrpc, '2.0');
  assert.equal(g.body.id, -1);
  assert.equal(p.body.id, 'req-7');
  assert.deepEqual(p.body.result, g.body.result, `${route}: GET and POST answers differ`);
  return g.body.result;
}

const block = (h: number) => n.node.modules.blocks.blockByHeight(h)!;
const blockIdJson = (h: number) => {
  const id = blockIdOf(block(h));
  return { hash: hex(id.hash), parts: { total: 1, hash: hex(id.partSetHeader.hash) } };
};
const commitJson = (c: Commit) => ({
  height: String(c.height),
  round: 0,
  block_id: c.height === 0 ? { hash: '', parts: { total: 0, hash: '' } } : blockIdJson(c.height),
  signatures: c.signatures.map((s) => ({
    block_id_flag: 2,
    validator_address: hex(s.validatorAddress),
    timestamp: TIME,
    signature: b64(s.signature),
  })),
});
const headerPattern = (h: number) => ({
  version: { block: '11', app: '0' },
  chain_id: 'it-1',
  height: String(h),
  time: TIME,
  last_block_id: h === 1 ? { hash: '', parts: { total: 0, hash: '' } } : blockIdJson(h - 1),
  last_commit_hash: HASH,
  data_hash: hex(block(h).header.dataHash),
  validators_hash: HASH,
  next_validators_hash: HASH,
  consensus_hash: HASH,
  app_hash: hex(block(h).header.appHash),
  last_results_hash: HASH,
  evidence_hash: HASH,
  proposer_address: ADDRESS,
});
/** A successful EVM transfer's result, with the ethereum_tx event both engines report. */
const okResult = (height: number, evmIndex: number) => ({
  code: 0,
  data: null,
  log: '',
  info: '',
  gas_wanted: '21000',
  gas_used: '21000',
  events: [
    {
      type: 'ethereum_tx',
      attributes: [
        {
          key: 'ethereumTxHash',
          value: Buffer.from(n.node.modules.blocks.receipt(height, evmIndex)!.txHash).toString('hex'),
          index: true,
        },
        { key: 'txIndex', value: String(evmIndex), index: true },
        { key: 'txGasUsed', value: '21000', index: false },
      ],
    },
  ],
  codespace: '',
});

step('broadcast_tx_commit, broadcast_tx_sync and the mempool routes', async () => {
  const commit = await post(n.rpc, 'broadcast_tx_commit', { tx: b64(tx1) });
  assert.equal(commit.status, 200);
  assert.deepEqual(commit.body.result, {
    check_tx: {
      code: 0,
      data: null,
      log: '',
      info: '',
      gas_wanted: '21000',
      gas_used: '0',
      events: [],
      codespace: '',
    },
    tx_result: okResult(1, 0),
    hash: hex(txHash(tx1)),
    height: '1',
  });

  // The pool is observed with block production paused (timeout-commit alone, 1 s, is a window a
  // loaded machine can miss); block 2 then takes both txs.
  await n.node.modules.engine.producer!.stop();
  const sync = await get(n.rpc, `/broadcast_tx_sync?tx=0x${Buffer.from(tx2).toString('hex')}`);
  assert.deepEqual(sync.body.result, { code: 0, data: '', log: '', codespace: '', hash: hex(txHash(tx2)) });
  const async = await post(n.rpc, 'broadcast_tx_async', [b64(tx3)]);
  assert.deepEqual(async.body.result, { code: 0, data: '', log: '', codespace: '', hash: hex(txHash(tx3)) });
  await until(() => n.node.modules.mempool.size === 2);
  const bytes = String(tx2.length + tx3.length);
  assert.deepEqual(await both('num_unconfirmed_txs', '', {}), {
    n_txs: '2',
    total: '2',
    total_bytes: bytes,
    txs: null,
  });
  assert.deepEqual(await both('unconfirmed_txs', 'limit=5', { limit: '5' }), {
    n_txs: '2',
    total: '2',
    total_bytes: bytes,
    txs: [b64(tx2), b64(tx3)],
  });
  assert.deepEqual((await both('unconfirmed_txs', 'limit=1', { limit: 1 })).txs, [b64(tx2)]);

  n.node.modules.engine.producer!.start();
  await until(() => n.node.modules.chain.latestHeight === 2);
  assert.deepEqual(block(2).txs.map(b64), [b64(tx2), b64(tx3)]);
  assert.deepEqual(await both('num_unconfirmed_txs', '', {}), {
    n_txs: '0',
    total: '0',
    total_bytes: '0',
    txs: null,
  });

  // A refused tx: CheckTx's SDK code and log, no error envelope.
  const garbage = await post(n.rpc, 'broadcast_tx_sync', { tx: b64(Uint8Array.of(1, 2, 3)) });
  assert.equal(garbage.body.result.code, 2);
  assert.equal(garbage.body.result.codespace, 'sdk');
  assert.match(garbage.body.result.log, /^tx parse error/);
  // a committed Ethereum tx again: a used nonce (ErrWrongSequence), in geth's words, as eth_sendRawTransaction says
  const again = await post(n.rpc, 'broadcast_tx_sync', { tx: b64(tx1) });
  assert.equal(again.body.result.code, 32, 'a committed tx is refused as a used nonce');
  assert.match(again.body.result.log, /^nonce too low: next nonce \d+, tx nonce \d+$/);
});

step('/status, /health, /net_info, /lag_status, /abci_info', async () => {
  const home = n.home;
  const nodeKey = ed25519FromJson(
    JSON.parse(readFileSync(join(home, 'config', 'node_key.json'), 'utf8')),
    'node_key',
  );
  const genesis = JSON.parse(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  const v = genesis.validators[0];
  const status = await both('status', '', {});
  assertShape(status, {
    node_info: {
      protocol_version: { p2p: '8', block: '11', app: '0' },
      id: nodeIdOf(nodeKey.publicKey),
      // no P2P listener exists (p2p.laddr is not bound): never an address nothing listens on
      listen_addr: 'none',
      network: 'it-1',
      version: '0.38.17',
      channels: '40202122233038606100',
      moniker: 'it',
      other: { tx_index: 'on', rpc_address: `tcp://127.0.0.1:${new URL(n.rpc).port}` },
    },
    sync_info: {
      latest_block_hash: hex(block(2).hash),
      latest_app_hash: hex(block(2).header.appHash),
      latest_block_height: '2',
      latest_block_time: TIME,
      earliest_block_hash: hex(block(1).hash),
      earliest_app_hash: hex(block(1).header.appHash),
      earliest_block_height: '1',
      earliest_block_time: TIME,
      catching_up: false,
      halted: false,
      halt_reason: '',
    },
    validator_info: { address: v.address, pub_key: v.pub_key, voting_power: v.power },
  });
  const listening = n.logs.find((r) => r.msg === 'consensus RPC listening');
  assert.deepEqual(listening?.fields, { module: 'rpc', address: `tcp://127.0.0.1:${new URL(n.rpc).port}` });
  assert.deepEqual(await both('health', '', {}), {});
  assert.deepEqual(await both('net_info', '', {}), {
    listening: false,
    listeners: [],
    n_peers: '0',
    peers: [],
  });
  assert.deepEqual(await both('lag_status', '', {}), { current_height: '2', max_peer_height: '2', lag: '0' });
  const version = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;
  assert.deepEqual(await both('abci_info', '', {}), {
    response: {
      data: 'chaind',
      version,
      app_version: '0',
      last_block_height: '2',
      last_block_app_hash: b64(n.node.modules.chain.appHash),
    },
  });
});

step('/genesis and /validators', async () => {
  const genesis = JSON.parse(readFileSync(join(n.home, 'config', 'genesis.json'), 'utf8'));
  assert.deepEqual(await both('genesis', '', {}), { genesis });
  const v = genesis.validators[0];
  const expected = {
    block_height: '1',
    validators: [{ address: v.address, pub_key: v.pub_key, voting_power: v.power, proposer_priority: '0' }],
    count: '1',
    total: '1',
  };
  assert.deepEqual(
    await both('validators', 'height=1&page=1&per_page=30', { height: '1', page: 1, per_page: 30 }),
    expected,
  );
  assert.equal((await both('validators', '', {})).block_height, '2');
});

step('/block, /block_by_hash, /blockchain', async () => {
  const b1 = await both('block', 'height=1', { height: '1' });
  assertShape(b1, {
    block_id: blockIdJson(1),
    block: {
      header: headerPattern(1),
      data: { txs: [b64(tx1)] },
      evidence: { evidence: [] },
      last_commit: commitJson(block(1).lastCommit),
    },
  });
  const b2 = await both('block', '', {});
  assertShape(b2.block.last_commit, commitJson(block(2).lastCommit));
  assert.equal(b2.block.header.height, '2');
  assert.deepEqual(b2.block.data.txs, [b64(tx2), b64(tx3)]);

  const byHash = await both('block_by_hash', `hash=0x${hex(block(1).hash)}`, { hash: b64(block(1).hash) });
  assert.deepEqual(byHash, b1);
  assert.deepEqual(
    await both('block_by_hash', `hash=0x${'00'.repeat(32)}`, { hash: b64(new Uint8Array(32)) }),
    {
      block_id: { hash: '', parts: { total: 0, hash: '' } },
      block: null,
    },
  );

  const chain = await both('blockchain', 'minHeight=1&maxHeight=5', { minHeight: '1', maxHeight: '5' });
  assertShape(chain, {
    last_height: '2',
    block_metas: [2, 1].map((h) => ({
      block_id: blockIdJson(h),
      block_size: INT,
      header: headerPattern(h),
      num_txs: String(block(h).txs.length),
    })),
  });
  assert.deepEqual((await both('blockchain', 'minHeight=2', { minHeight: 2 })).block_metas.length, 1);
});

step('/block_results and /commit', async () => {
  assert.deepEqual(await both('block_results', 'height=1', { height: 1 }), {
    height: '1',
    txs_results: [okResult(1, 0)],
    finalize_block_events: [],
    validator_updates: [],
    consensus_param_updates: null,
    app_hash: b64(block(2).header.appHash),
  });
  const r2 = await both('block_results', '', {});
  assert.deepEqual(r2.txs_results, [okResult(2, 0), okResult(2, 1)]);
  assert.equal(r2.app_hash, b64(n.node.modules.chain.appHash));

  // A committed block's commit comes from its successor (canonical).
  const c1 = await both('commit', 'height=1', { height: '1' });
  assertShape(c1, {
    signed_header: { header: headerPattern(1), commit: commitJson(block(2).lastCommit) },
    canonical: true,
  });
  // The latest block's commit is the validator's own precommit, and its signature verifies.
  const c2 = await both('commit', 'height=2', { height: '2' });
  assert.equal(c2.canonical, false);
  assertShape(c2.signed_header.header, headerPattern(2));
  const sig = c2.signed_header.commit.signatures[0];
  assertShape(sig, {
    block_id_flag: 2,
    validator_address: hex(block(2).header.proposerAddress),
    timestamp: TIME,
    signature: B64,
  });
  const validator = ed25519FromJson(
    JSON.parse(readFileSync(join(n.home, 'config', 'priv_validator_key.json'), 'utf8')),
    'priv_validator_key',
  );
  const signBytes = precommitSignBytes('it-1', 2, 0, blockIdOf(block(2)), block(2).header.time);
  assert.ok(ed25519Verify(validator.publicKey, signBytes, Buffer.from(sig.signature, 'base64')));
});

/** CometBFT's proof check: fold the aunts from the leaf upwards and compare with the data hash. */
function verifyProof(proof: any, tx: Uint8Array): void {
  let index = Number(proof.proof.index);
  let total = Number(proof.proof.total);
  let hash: Uint8Array = merkleLeafHash(txHash(tx));
  assert.equal(proof.proof.leaf_hash, b64(hash));
  assert.equal(proof.data, b64(tx));
  const aunts = proof.proof.aunts.map((a: string) => new Uint8Array(Buffer.from(a, 'base64')));
  const fold = (i: number, t: number, leaf: Uint8Array, rest: Uint8Array[]): Uint8Array => {
    if (t === 1) return leaf;
    let k = 1;
    while (k * 2 < t) k *= 2;
    const aunt = rest[rest.length - 1];
    return i < k
      ? merkleInnerHash(fold(i, k, leaf, rest.slice(0, -1)), aunt)
      : merkleInnerHash(aunt, fold(i - k, t - k, leaf, rest.slice(0, -1)));
  };
  hash = fold(index, total, hash, aunts);
  assert.equal(proof.root_hash, hex(hash));
}

step('/tx and /tx_search (by tx.height and tx.hash, paging, order, proofs)', async () => {
  const t1 = await both('tx', `hash=0x${hex(txHash(tx1))}`, { hash: b64(txHash(tx1)) });
  assert.deepEqual(t1, {
    hash: hex(txHash(tx1)),
    height: '1',
    index: 0,
    tx_result: okResult(1, 0),
    tx: b64(tx1),
  });
  const proved = await both('tx', `hash=0x${hex(txHash(tx3))}&prove=true`, {
    hash: b64(txHash(tx3)),
    prove: true,
  });
  assertShape(proved.proof, {
    root_hash: hex(block(2).header.dataHash),
    data: b64(tx3),
    proof: { total: '2', index: '1', leaf_hash: B64, aunts: [B64] },
  });
  verifyProof(proved.proof, tx3);

  const byHeight = await both('tx_search', 'query="tx.height=2"', { query: 'tx.height=2' });
  assert.equal(byHeight.total_count, '2');
  assert.deepEqual(
    byHeight.txs.map((t: any) => [t.hash, t.height, t.index]),
    [
      [hex(txHash(tx2)), '2', 0],
      [hex(txHash(tx3)), '2', 1],
    ],
  );
  const range = await both(
    'tx_search',
    `query="tx.height>=1 AND tx.height<=2"&order_by="desc"&per_page=2&page=1`,
    {
      query: 'tx.height >= 1 AND tx.height <= 2',
      order_by: 'desc',
      per_page: '2',
      page: '1',
    },
  );
  assert.equal(range.total_count, '3');
  assert.deepEqual(
    range.txs.map((t: any) => t.tx),
    [b64(tx3), b64(tx2)],
  );
  const page2 = await both('tx_search', `query="tx.height>0"&per_page=2&page=2`, {
    query: 'tx.height>0',
    per_page: 2,
    page: 2,
  });
  assert.deepEqual(
    page2.txs.map((t: any) => t.tx),
    [b64(tx3)],
  );
  const byHash = await both('tx_search', `query="tx.hash='${hex(txHash(tx2))}'"&prove=true`, {
    query: `tx.hash='${hex(txHash(tx2))}'`,
    prove: true,
  });
  assert.equal(byHash.total_count, '1');
  verifyProof(byHash.txs[0].proof, tx2);
});

test('consensus RPC routes (GET and POST forms)', async (t) => {
  n = await startRpcNode(t, { 'consensus.timeout-commit': '1s', 'consensus.create-empty-blocks': 'false' });
  [tx1, tx2, tx3] = await Promise.all([0, 1, 2].map((nonce) => evmTransferTxRaw(0, 1, nonce)));
  for (const [name, fn] of cases) await t.test(name, fn);
});
