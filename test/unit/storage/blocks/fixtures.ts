/**
 * Seeded generators of chains for block-store tests and the blocks benchmark: real header hashes,
 * EVM txs with receipts and logs drawn from small address/topic pools (so filters hit and miss),
 * Cosmos txs with results.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  BlockIdFlag,
  dataHash,
  EMPTY_BLOCK_ID,
  EMPTY_MERKLE_ROOT,
  headerHash,
  type Commit,
  type Header,
} from '../../../../src/codec/index.ts';
import { logsBloom } from '../../../../src/storage/blocks/bloom.ts';
import type { Block, CosmosTxResult, Log, Receipt } from '../../../../src/storage/blocks/types.ts';

export { seededRandom as prng } from '../../../helpers/random.ts';

export { tempDir } from '../../../helpers/random.ts';

export function filled(len: number, seed: number): Uint8Array {
  const b = new Uint8Array(len);
  for (let i = 0; i < len; i++) b[i] = (seed * 31 + i * 7 + (seed >> 8)) & 0xff;
  return b;
}

export interface BlockContents {
  block: Block;
  receipts: Receipt[];
  results: CosmosTxResult[];
}

export interface ChainShape {
  evmTxs: number;
  cosmosTxs: number;
  /** mean logs per EVM tx (0..2 × mean, uniform) */
  logsPerTx: number;
  addresses: Uint8Array[];
  topics: Uint8Array[];
  /** bytes of log data */
  dataBytes?: number;
}

export const VALIDATORS_HASH = keccak_256(Uint8Array.of(1));

export function makeHeader(height: number, prevHash: Uint8Array, txs: Uint8Array[]): Header {
  return {
    version: { block: 11, app: 0 },
    chainId: 'chaind-test',
    height,
    time: { seconds: 1_700_000_000 + height, nanos: height % 1000 },
    lastBlockId:
      height === 1
        ? EMPTY_BLOCK_ID
        : { hash: prevHash, partSetHeader: { total: 1, hash: filled(32, height) } },
    lastCommitHash: EMPTY_MERKLE_ROOT,
    dataHash: dataHash(txs),
    validatorsHash: VALIDATORS_HASH,
    nextValidatorsHash: VALIDATORS_HASH,
    consensusHash: filled(32, 9),
    appHash: filled(32, height + 1),
    lastResultsHash: EMPTY_MERKLE_ROOT,
    evidenceHash: EMPTY_MERKLE_ROOT,
    proposerAddress: filled(20, 3),
  };
}

export function makeCommit(height: number, prevHash: Uint8Array): Commit {
  return {
    height: height - 1,
    round: 0,
    blockId:
      height === 1
        ? EMPTY_BLOCK_ID
        : { hash: prevHash, partSetHeader: { total: 1, hash: filled(32, height) } },
    signatures:
      height === 1
        ? []
        : [
            {
              blockIdFlag: BlockIdFlag.Commit,
              validatorAddress: filled(20, 3),
              timestamp: { seconds: 1_700_000_000 + height, nanos: 1 },
              signature: filled(64, height),
            },
          ],
  };
}

/** Builds the block at `height`: EVM and Cosmos txs interleaved pseudo-randomly. */
export function makeBlock(
  height: number,
  prevHash: Uint8Array,
  shape: ChainShape,
  rand: () => number,
): BlockContents {
  const total = shape.evmTxs + shape.cosmosTxs;
  const kinds: boolean[] = [];
  for (let i = 0; i < shape.evmTxs; i++) kinds.push(true);
  for (let i = 0; i < shape.cosmosTxs; i++) kinds.push(false);
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j], kinds[i]];
  }
  const txs: Uint8Array[] = [];
  const receipts: Receipt[] = [];
  const results: CosmosTxResult[] = [];
  let logIndex = 0;
  let cumulative = 0n;
  for (let i = 0; i < total; i++) {
    const tx = new Uint8Array(40 + Math.floor(rand() * 80));
    const dv = new DataView(tx.buffer);
    dv.setUint32(0, height);
    dv.setUint32(4, i);
    tx[8] = kinds[i] ? 1 : 2;
    for (let k = 9; k < tx.length; k++) tx[k] = Math.floor(rand() * 256);
    txs.push(tx);
    if (kinds[i]) {
      const txHash = keccak_256(tx);
      const txIndex = receipts.length;
      const nLogs = Math.floor(rand() * (2 * shape.logsPerTx + 1));
      const logs: Log[] = [];
      for (let l = 0; l < nLogs; l++) {
        const nTopics = Math.floor(rand() * 5);
        logs.push({
          address: shape.addresses[Math.floor(rand() * shape.addresses.length)],
          topics: Array.from(
            { length: nTopics },
            () => shape.topics[Math.floor(rand() * shape.topics.length)],
          ),
          data: filled(shape.dataBytes ?? Math.floor(rand() * 70), logIndex),
          logIndex: logIndex++,
          txIndex,
          txHash,
        });
      }
      const gasUsed = 21_000n + BigInt(Math.floor(rand() * 100_000));
      cumulative += gasUsed;
      const create = rand() < 0.1;
      receipts.push({
        txHash,
        txIndex,
        blockTxIndex: i,
        from: filled(20, i),
        to: create ? null : filled(20, i + 1),
        contractAddress: create ? filled(20, i + 2) : null,
        status: rand() < 0.9 ? 1 : 0,
        gasUsed,
        cumulativeGasUsed: cumulative,
        effectiveGasPrice: 1_000_000_000n + BigInt(height),
        type: [0, 1, 2, 4][Math.floor(rand() * 4)],
        logs,
        logsBloom: logsBloom(logs),
      });
    } else {
      results.push({
        index: i,
        code: rand() < 0.8 ? 0 : 5,
        codespace: 'sdk',
        log: `tx ${i}`,
        gasWanted: 200_000n,
        gasUsed: 50_000n + BigInt(i),
        events: [{ type: 'transfer', attributes: [{ key: 'amount', value: `${i}uchain`, index: true }] }],
      });
    }
  }
  const header = makeHeader(height, prevHash, txs);
  const block: Block = { header, hash: headerHash(header)!, txs, lastCommit: makeCommit(height, prevHash) };
  return { block, receipts, results };
}

/** `count` consecutive blocks starting at `from`. */
export function* makeChain(
  from: number,
  count: number,
  shape: ChainShape,
  rand: () => number,
  prevHash: Uint8Array = new Uint8Array(32),
): Generator<BlockContents> {
  let prev = prevHash;
  for (let h = from; h < from + count; h++) {
    const c = makeBlock(h, prev, shape, rand);
    prev = c.block.hash;
    yield c;
  }
}

export function pools(
  nAddresses: number,
  nTopics: number,
): { addresses: Uint8Array[]; topics: Uint8Array[] } {
  return {
    addresses: Array.from({ length: nAddresses }, (_, i) => keccak_256(Uint8Array.of(0xa0, i)).subarray(12)),
    topics: Array.from({ length: nTopics }, (_, i) => keccak_256(Uint8Array.of(0x70, i))),
  };
}

/** The chain the crash test's child process writes and the parent rebuilds. */
export function crashShape(): ChainShape {
  return { evmTxs: 40, cosmosTxs: 10, logsPerTx: 2, ...pools(20, 40) };
}
