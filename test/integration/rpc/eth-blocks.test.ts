/**
 * Blocks over HTTP: the genesis view, the block mapping of docs/adr/0012-every-tx-is-a-cosmos-txraw.md checked field by field against the stored
 * header, tag equivalence, hash lookups, tx counts, block receipts, and nulls for unknown blocks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MerklePatriciaTrie } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { encodeReceipt } from '@ethereumjs/vm';
import { createHash } from 'node:crypto';
import { Interface, parseEther } from 'ethers';
import { encodeBlock } from '../../../src/storage/blocks/block-codec.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { GWEI, hex, result, rpcNode, wallets, waitReceipt, CHAIN_ID } from './rpc-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const h = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const bytes = (s: string) => Uint8Array.from(Buffer.from(s.slice(2), 'hex'));
const ZERO32 = '0x' + '00'.repeat(32);
const EMPTY_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

async function trieRoot(values: Uint8Array[]): Promise<string> {
  const trie = new MerklePatriciaTrie();
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]);
  return h(trie.root());
}

test('blocks: genesis view, field mapping, tags, hashes, counts, receipts, nulls', async (t) => {
  const { node, url } = await rpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);

  // A first block, then four txs of several types and senders, held back so that they land in one block.
  await waitReceipt(
    url,
    await call(
      'eth_sendRawTransaction',
      await wallets[4].signTransaction({
        chainId: CHAIN_ID,
        type: 2,
        nonce: 0,
        to: wallets[5].address,
        value: 1n,
        gasLimit: 21000,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: 0n,
      }),
    ),
  );
  await node.modules.engine.producer!.stop();
  const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
  const signed = await Promise.all([
    wallets[0].signTransaction({
      chainId: CHAIN_ID,
      type: 2,
      nonce: 0,
      to: wallets[5].address,
      value: 1n,
      gasLimit: 21000,
      ...fee,
    }),
    wallets[1].signTransaction({
      chainId: CHAIN_ID,
      type: 0,
      nonce: 0,
      to: wallets[5].address,
      value: parseEther('1'),
      gasLimit: 21000,
      gasPrice: 3n * GWEI,
    }),
    wallets[2].signTransaction({
      chainId: CHAIN_ID,
      type: 1,
      nonce: 0,
      to: wallets[5].address,
      value: 2n,
      gasLimit: 30000,
      gasPrice: 2n * GWEI,
      accessList: [],
    }),
    wallets[3].signTransaction({
      chainId: CHAIN_ID,
      type: 2,
      nonce: 0,
      gasLimit: 2_000_000,
      data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
      ...fee,
    }),
  ]);
  const hashes: string[] = [];
  for (const raw of signed) hashes.push(await call('eth_sendRawTransaction', raw));
  node.modules.engine.producer!.start();
  const receipts = await Promise.all(hashes.map((x) => waitReceipt(url, x)));
  const height = Number(receipts[0].blockNumber);
  assert.ok(
    receipts.every((r) => Number(r.blockNumber) === height),
    'all in one block',
  );
  const latest = Number(await call('eth_blockNumber'));
  assert.equal(latest, node.modules.chain.latestHeight);

  await t.test(
    'the genesis block (height 0) is a real view with the genesis time and state root',
    async () => {
      const stored1 = node.modules.blocks.blockByHeight(1)!;
      const genesis = await call('eth_getBlockByNumber', '0x0', false);
      // the documented rule: SHA-256 of `chaind-genesis/<chain_id>/<genesis time, unix s>/<app hash hex>`
      const seconds = Date.parse('2026-01-01T00:00:00Z') / 1000;
      const appHash = Buffer.from(stored1.header.appHash).toString('hex');
      const genesisHash =
        '0x' + createHash('sha256').update(`chaind-genesis/it-1/${seconds}/${appHash}`).digest('hex');
      assert.deepEqual(genesis, {
        baseFeePerGas: hex(GWEI),
        difficulty: '0x0',
        extraData: '0x',
        gasLimit: hex(30_000_000),
        gasUsed: '0x0',
        hash: genesisHash,
        logsBloom: '0x' + '00'.repeat(256),
        miner: '0x' + '00'.repeat(20),
        mixHash: ZERO32,
        nonce: '0x0000000000000000',
        number: '0x0',
        parentHash: ZERO32,
        receiptsRoot: EMPTY_ROOT,
        sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
        size: '0x0',
        stateRoot: h(stored1.header.appHash),
        timestamp: hex(Date.parse('2026-01-01T00:00:00Z') / 1000),
        transactions: [],
        transactionsRoot: EMPTY_ROOT,
        uncles: [],
      });
      assert.deepEqual(await call('eth_getBlockByNumber', 'earliest', true), genesis);
      assert.deepEqual(await call('eth_getBlockByHash', genesisHash, false), genesis);
      // no block has the all-zero hash
      assert.equal(await call('eth_getBlockByHash', ZERO32, false), null);
      // Block 1's parent is the genesis view (its CometBFT header has an empty last block id).
      assert.equal(stored1.header.lastBlockId.hash.length, 0);
      assert.equal((await call('eth_getBlockByNumber', '0x1', false)).parentHash, genesisHash);
      assert.equal(await call('eth_getBlockTransactionCountByNumber', '0x0'), '0x0');
      assert.deepEqual(await call('eth_getBlockReceipts', 'earliest'), []);
    },
  );

  await t.test('a block with txs maps every field from the stored header and receipts', async () => {
    const stored = node.modules.blocks.blockByHeight(height)!;
    const ordered = [...receipts].sort((a, b) => Number(a.transactionIndex) - Number(b.transactionIndex));
    const rawByHash = new Map(hashes.map((x, i) => [x, bytes(signed[i])]));
    const bloom = new Uint8Array(256);
    for (const r of ordered) bytes(r.logsBloom).forEach((b, i) => (bloom[i] |= b));
    const expected = {
      baseFeePerGas: hex(GWEI),
      difficulty: '0x0',
      extraData: '0x',
      gasLimit: hex(30_000_000),
      gasUsed: hex(ordered.reduce((s, r) => s + BigInt(r.gasUsed), 0n)),
      hash: h(stored.hash),
      logsBloom: h(bloom),
      miner: h(stored.header.proposerAddress),
      mixHash: ZERO32,
      nonce: '0x0000000000000000',
      number: hex(height),
      parentHash: h(node.modules.blocks.blockByHeight(height - 1)!.hash),
      receiptsRoot: await trieRoot(
        ordered.map((r) =>
          encodeReceipt(
            {
              status: Number(r.status),
              cumulativeBlockGasUsed: BigInt(r.cumulativeGasUsed),
              bitvector: bytes(r.logsBloom),
              logs: r.logs.map((l: any) => [bytes(l.address), l.topics.map(bytes), bytes(l.data)]),
            } as never,
            Number(r.type) as 0 | 1 | 2 | 4,
          ),
        ),
      ),
      sha3Uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
      size: hex(encodeBlock(stored).length),
      stateRoot: h(stored.header.appHash),
      timestamp: hex(stored.header.time.seconds),
      transactions: ordered.map((r) => r.transactionHash),
      transactionsRoot: await trieRoot(ordered.map((r) => rawByHash.get(r.transactionHash)!)),
      uncles: [],
    };
    const block = await call('eth_getBlockByNumber', hex(height), false);
    assert.deepEqual(block, expected);
    assert.notEqual(expected.receiptsRoot, EMPTY_ROOT);
    assert.deepEqual(await call('eth_getBlockByHash', expected.hash, false), block);

    const full = await call('eth_getBlockByNumber', hex(height), true);
    assert.deepEqual({ ...full, transactions: undefined }, { ...block, transactions: undefined });
    for (let i = 0; i < ordered.length; i++) {
      const tx = await call('eth_getTransactionByHash', ordered[i].transactionHash);
      assert.deepEqual(full.transactions[i], tx);
      assert.deepEqual(await call('eth_getTransactionByBlockNumberAndIndex', hex(height), hex(i)), tx);
      assert.deepEqual(await call('eth_getTransactionByBlockHashAndIndex', expected.hash, hex(i)), tx);
    }
    assert.deepEqual((await call('eth_getBlockByHash', expected.hash, true)).transactions, full.transactions);
  });

  await t.test('latest, safe, finalized and pending name the same block; hashes chain up', async () => {
    const byNumber = await call('eth_getBlockByNumber', hex(latest), false);
    for (const tag of ['latest', 'safe', 'finalized', 'pending'])
      assert.deepEqual(await call('eth_getBlockByNumber', tag, false), byNumber, tag);
    for (let n = 2; n <= latest; n++) {
      const [a, b] = await Promise.all([
        call('eth_getBlockByNumber', hex(n - 1), false),
        call('eth_getBlockByNumber', hex(n), false),
      ]);
      assert.equal(b.parentHash, a.hash);
      assert.equal(b.stateRoot, h(node.modules.blocks.blockByHeight(n)!.header.appHash));
    }
  });

  await t.test('tx counts and block receipts by number, hash and EIP-1898 object', async () => {
    const hash = (await call('eth_getBlockByNumber', hex(height), false)).hash;
    assert.equal(await call('eth_getBlockTransactionCountByNumber', hex(height)), '0x4');
    assert.equal(await call('eth_getBlockTransactionCountByHash', hash), '0x4');
    const expected = await Promise.all(
      [...receipts]
        .sort((a, b) => Number(a.transactionIndex) - Number(b.transactionIndex))
        .map((r) => call('eth_getTransactionReceipt', r.transactionHash)),
    );
    for (const ref of [
      hex(height),
      hash,
      { blockHash: hash },
      { blockHash: hash, requireCanonical: true },
      { blockNumber: hex(height) },
    ])
      assert.deepEqual(await call('eth_getBlockReceipts', ref), expected, JSON.stringify(ref));
    assert.equal(await call('eth_getUncleCountByBlockNumber', hex(height)), '0x0');
    assert.equal(await call('eth_getUncleCountByBlockHash', hash), '0x0');
    assert.equal(await call('eth_getUncleByBlockNumberAndIndex', hex(height), '0x0'), null);
  });

  await t.test('unknown blocks and heights above latest are null, not errors', async () => {
    const future = hex(latest + 1);
    const unknown = '0x' + 'ab'.repeat(32);
    assert.equal(await call('eth_getBlockByNumber', future, false), null);
    assert.equal(await call('eth_getBlockByHash', unknown, true), null);
    assert.equal(await call('eth_getBlockTransactionCountByNumber', future), null);
    assert.equal(await call('eth_getBlockTransactionCountByHash', unknown), null);
    assert.equal(await call('eth_getBlockReceipts', future), null);
    assert.equal(await call('eth_getBlockReceipts', { blockHash: unknown }), null);
    assert.equal(await call('eth_getTransactionByBlockNumberAndIndex', future, '0x0'), null);
    assert.equal(await call('eth_getTransactionByBlockNumberAndIndex', hex(height), '0x4'), null);
    assert.equal(await call('eth_getTransactionByBlockHashAndIndex', unknown, '0x0'), null);
    assert.equal(await call('eth_getUncleCountByBlockNumber', future), null);
    assert.equal(await call('eth_getUncleCountByBlockHash', unknown), null);
  });
});
