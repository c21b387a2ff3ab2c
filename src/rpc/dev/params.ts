/**
 * Parameters of the dev-chain methods as the tools send them: counts and seconds arrive as JSON
 * numbers (web3.js, Truffle, anvil's own examples) or as hex quantities (viem, Hardhat's helpers).
 */
import { CodecError } from '../codecs/errors.ts';
import { jsonKind, parseSmallQuantity } from '../codecs/hex.ts';
import type { ParamCodec } from '../codecs/params.ts';

function parseUint(v: unknown): number {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || v < 0)
      throw new CodecError(`${v} is not a whole number between 0 and 2^53 - 1`);
    return v;
  }
  if (typeof v !== 'string')
    throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into a number or a hex quantity`);
  return parseSmallQuantity(v);
}

/** A whole number ≥ 0: a JSON number or a hex quantity. */
export const uint: ParamCodec<number> = { optional: false, parse: parseUint };

/** A JSON value passed through as it is (typed data as an object or its JSON text). */
export const json: ParamCodec<unknown> = {
  optional: false,
  parse: (v) => {
    if (v === undefined || v === null) throw new CodecError('missing value');
    return v;
  },
};

const MAX_U256 = 2n ** 256n - 1n;

/**
 * A 256-bit amount as the tools send it: a hex quantity (leading zeroes allowed, as anvil reads it),
 * a string of decimal digits (`cast rpc … 1000`), or a JSON number that is a safe integer.
 */
export const u256: ParamCodec<bigint> = {
  optional: false,
  parse: (v) => {
    let n: bigint;
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v) || v < 0)
        throw new CodecError(
          `${v} is not a whole number between 0 and 2^53 - 1 (send larger amounts as hex)`,
        );
      n = BigInt(v);
    } else if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)) n = BigInt(v);
    else if (typeof v === 'string' && /^[0-9]{1,78}$/.test(v)) n = BigInt(v);
    else if (typeof v === 'string')
      throw new CodecError(`${JSON.stringify(v)} is not a hex quantity or a decimal number`);
    else throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into a 256-bit number`);
    if (n > MAX_U256) throw new CodecError(`${v} does not fit in 256 bits`);
    return n;
  },
};
