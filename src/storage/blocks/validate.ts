/**
 * Checks everything putBlock is given before a single op is built, so a bad input fails with a
 * message naming the field and never leaves part of a height written.
 */
import { equalBytes, toHex } from '../../primitives/bytes.ts';
import { headerHash } from '../../codec/index.ts';
import { BLOOM_BYTES } from './bloom.ts';
import { InvalidBlockDataError } from './errors.ts';
import type { Block, CosmosTxResult, Receipt } from './types.ts';

const U32 = 0xffffffff;

function fail(msg: string): never {
  throw new InvalidBlockDataError(`block store: ${msg}`);
}

function bytesOf(v: unknown, len: number | undefined, what: string): void {
  if (!(v instanceof Uint8Array)) fail(`${what} must be a Uint8Array`);
  if (len !== undefined && v.length !== len) fail(`${what} must be ${len} bytes, got ${v.length}`);
}

function uint(v: unknown, what: string, max = Number.MAX_SAFE_INTEGER): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
    fail(`${what} must be an integer in [0, ${max}], got ${v}`);
}

function quantity(v: unknown, what: string): void {
  if (typeof v !== 'bigint' || v < 0n) fail(`${what} must be a non-negative bigint, got ${String(v)}`);
}

export function validateBlock(block: Block): void {
  uint(block.header.height, 'header.height');
  if (block.header.height < 1) fail('header.height must be at least 1');
  if (block.hashFromEngine) {
    bytesOf(block.hash, 32, 'block hash');
  } else {
    checkHeaderHash(block);
  }
  if (!Array.isArray(block.txs)) fail('txs must be an array');
  block.txs.forEach((tx, i) => bytesOf(tx, undefined, `tx ${i}`));
  const c = block.lastCommit;
  uint(c.height, 'lastCommit.height');
  uint(c.round, 'lastCommit.round', U32);
  c.signatures.forEach((s, i) => {
    uint(s.blockIdFlag, `lastCommit.signatures[${i}].blockIdFlag`, 255);
    bytesOf(s.validatorAddress, undefined, `lastCommit.signatures[${i}].validatorAddress`);
    bytesOf(s.signature, undefined, `lastCommit.signatures[${i}].signature`);
  });
  if (block.lastCommitPowers !== undefined) {
    if (!Array.isArray(block.lastCommitPowers) || block.lastCommitPowers.length !== c.signatures.length)
      fail(`lastCommitPowers must hold one power per lastCommit signature (${c.signatures.length})`);
    block.lastCommitPowers.forEach((p, i) => quantity(p, `lastCommitPowers[${i}]`));
  }
  if (block.misbehavior !== undefined) {
    if (!Array.isArray(block.misbehavior)) fail('misbehavior must be an array');
    block.misbehavior.forEach((m, i) => {
      const at = `misbehavior[${i}]`;
      if (m.kind !== 'duplicate_vote' && m.kind !== 'light_client_attack')
        fail(`${at}.kind must be duplicate_vote or light_client_attack, got ${String(m.kind)}`);
      bytesOf(m.address, undefined, `${at}.address`);
      quantity(m.power, `${at}.power`);
      uint(m.height, `${at}.height`);
      if (!Number.isSafeInteger(m.time?.seconds)) fail(`${at}.time.seconds must be an integer`);
      uint(m.time.nanos, `${at}.time.nanos`, 999_999_999);
      quantity(m.totalVotingPower, `${at}.totalVotingPower`);
    });
  }
}

function checkHeaderHash(block: Block): void {
  let expected: Uint8Array | undefined;
  try {
    expected = headerHash(block.header);
  } catch (err) {
    fail(`header cannot be hashed: ${(err as Error).message}`);
  }
  if (!expected)
    fail(`header at height ${block.header.height} has an empty validators_hash, so no block hash`);
  bytesOf(block.hash, 32, 'block hash');
  if (!equalBytes(expected, block.hash)) {
    fail(
      `block hash ${toHex(block.hash)} is not the header hash ${toHex(expected)} at height ${block.header.height}`,
    );
  }
}

export function validateReceipts(block: Block, receipts: Receipt[]): void {
  let nextLogIndex = 0;
  let lastBlockTxIndex = -1;
  receipts.forEach((rc, i) => {
    const at = `receipt ${i}`;
    if (rc.txIndex !== i)
      fail(`${at}: txIndex must be ${i} (receipts are given in EVM tx order), got ${rc.txIndex}`);
    uint(rc.blockTxIndex, `${at}.blockTxIndex`, U32);
    if (rc.blockTxIndex <= lastBlockTxIndex || rc.blockTxIndex >= block.txs.length) {
      fail(
        `${at}: blockTxIndex ${rc.blockTxIndex} must increase and be below the block's ${block.txs.length} txs`,
      );
    }
    lastBlockTxIndex = rc.blockTxIndex;
    bytesOf(rc.txHash, 32, `${at}.txHash`);
    bytesOf(rc.from, 20, `${at}.from`);
    if (rc.to !== null) bytesOf(rc.to, 20, `${at}.to`);
    if (rc.contractAddress !== null) bytesOf(rc.contractAddress, 20, `${at}.contractAddress`);
    if (rc.status !== 0 && rc.status !== 1) fail(`${at}.status must be 0 or 1, got ${rc.status}`);
    uint(rc.type, `${at}.type`, 255);
    quantity(rc.gasUsed, `${at}.gasUsed`);
    quantity(rc.cumulativeGasUsed, `${at}.cumulativeGasUsed`);
    quantity(rc.effectiveGasPrice, `${at}.effectiveGasPrice`);
    bytesOf(rc.logsBloom, BLOOM_BYTES, `${at}.logsBloom`);
    rc.logs.forEach((log, j) => {
      const lat = `${at} log ${j}`;
      bytesOf(log.address, 20, `${lat}.address`);
      if (log.topics.length > 4) fail(`${lat} has ${log.topics.length} topics (at most 4)`);
      log.topics.forEach((t, k) => bytesOf(t, 32, `${lat}.topics[${k}]`));
      bytesOf(log.data, undefined, `${lat}.data`);
      if (log.logIndex !== nextLogIndex)
        fail(`${lat}.logIndex must be ${nextLogIndex} (block-wide), got ${log.logIndex}`);
      if (log.txIndex !== rc.txIndex)
        fail(`${lat}.txIndex ${log.txIndex} differs from the receipt's ${rc.txIndex}`);
      if (!equalBytes(log.txHash, rc.txHash)) fail(`${lat}.txHash differs from the receipt's`);
      nextLogIndex++;
    });
  });
}

export function validateCosmosResults(block: Block, results: CosmosTxResult[]): void {
  let last = -1;
  results.forEach((res, i) => {
    const at = `cosmos result ${i}`;
    uint(res.index, `${at}.index`, U32);
    if (res.index <= last || res.index >= block.txs.length) {
      fail(`${at}: index ${res.index} must increase and be below the block's ${block.txs.length} txs`);
    }
    last = res.index;
    uint(res.code, `${at}.code`, U32);
    quantity(res.gasWanted, `${at}.gasWanted`);
    quantity(res.gasUsed, `${at}.gasUsed`);
    if (typeof res.codespace !== 'string' || typeof res.log !== 'string')
      fail(`${at}: codespace and log must be strings`);
  });
}
