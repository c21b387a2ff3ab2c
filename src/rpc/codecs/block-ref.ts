/**
 * Block references (EIP-1898): a hex number, a tag, a block hash, or the
 * objects `{blockHash, requireCanonical?}` / `{blockNumber}`. Parsing only; which height a reference
 * names is decided by rpc/evm against the chain's watermark.
 */
import { CodecError } from './errors.ts';
import { parseHash, parseQuantity } from './hex.ts';

export const BLOCK_TAGS = ['earliest', 'latest', 'safe', 'finalized', 'pending'] as const;
export type BlockTag = (typeof BLOCK_TAGS)[number];

export type BlockNumberRef = { kind: 'number'; height: number } | { kind: 'tag'; tag: BlockTag };
export type BlockRef = BlockNumberRef | { kind: 'hash'; hash: Uint8Array; requireCanonical: boolean };

const MAX_INT64 = (1n << 63n) - 1n;

/** A hex number or a tag (geth's rpc.BlockNumber). */
export function parseBlockNumber(v: unknown): BlockNumberRef {
  if (typeof v !== 'string') {
    throw new CodecError(
      `invalid block number ${JSON.stringify(v) ?? String(v)}: want a hex number or one of ${BLOCK_TAGS.join(', ')}`,
    );
  }
  if ((BLOCK_TAGS as readonly string[]).includes(v)) return { kind: 'tag', tag: v as BlockTag };
  const n = parseQuantity(v, 64);
  if (n > MAX_INT64) throw new CodecError('block number larger than int64');
  // Heights are JS numbers throughout the node; anything larger is certainly above the chain's head.
  return {
    kind: 'number',
    height: n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n),
  };
}

/**
 * A log filter's `fromBlock`/`toBlock`: as parseBlockNumber, but a number above 2^53 - 1 (a height no
 * chain reaches, which parseBlockNumber reads as "above the head") is refused: a range is answered
 * by walking it, and one ending there cannot be.
 */
export function parseFilterBlockNumber(v: unknown): BlockNumberRef {
  const ref = parseBlockNumber(v);
  if (ref.kind === 'number' && BigInt(v as string) > BigInt(Number.MAX_SAFE_INTEGER))
    throw new CodecError(
      `invalid block number ${v as string}: above 2^53 - 1, the highest block a filter may name`,
    );
  return ref;
}

/** A number, tag or hash, as a string or an EIP-1898 object (geth's rpc.BlockNumberOrHash). */
export function parseBlockRef(v: unknown): BlockRef {
  if (typeof v === 'string') {
    return v.length === 66
      ? { kind: 'hash', hash: parseHash(v), requireCanonical: false }
      : parseBlockNumber(v);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new CodecError(
      `invalid block reference ${JSON.stringify(v)}: want a hex number, a tag, a block hash or an EIP-1898 object`,
    );
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== 'blockHash' && k !== 'blockNumber' && k !== 'requireCanonical')
      throw new CodecError(`unknown field "${k}" in block reference`);
  }
  const hasHash = o.blockHash !== undefined;
  const hasNumber = o.blockNumber !== undefined;
  if (hasHash && hasNumber)
    throw new CodecError('cannot specify both BlockHash and BlockNumber, choose one or the other');
  if (hasHash) {
    const rc = o.requireCanonical;
    if (rc !== undefined && typeof rc !== 'boolean')
      throw new CodecError('requireCanonical must be a boolean');
    return { kind: 'hash', hash: parseHash(o.blockHash), requireCanonical: rc === true };
  }
  if (hasNumber) {
    if (o.requireCanonical !== undefined)
      throw new CodecError('requireCanonical is only allowed with blockHash');
    return parseBlockNumber(o.blockNumber);
  }
  throw new CodecError('either blockHash or blockNumber must be specified');
}
