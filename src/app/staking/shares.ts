/**
 * A validator's exchange rate between tokens and delegator shares, with the SDK's rounding
 * (x/staking/types/validator.go): who gets the last unit depends on it.
 */
import {
  decFromInt,
  decMulInt,
  decQuo,
  decQuoInt,
  decQuoTruncate,
  decTruncateInt,
  formatDec,
  parseDec,
} from './dec.ts';
import type { ValidatorRecord } from './records.ts';

export const tokensOf = (v: ValidatorRecord): bigint => BigInt(v.tokens);
export const sharesOf = (v: ValidatorRecord): bigint => parseDec(v.delegator_shares);

/** Tokens are gone but shares remain (everything slashed): no new delegation can be priced. */
export const invalidExRate = (v: ValidatorRecord): boolean => tokensOf(v) === 0n && sharesOf(v) > 0n;

export function tokensFromShares(v: ValidatorRecord, shares: bigint): bigint {
  return decQuo(decMulInt(shares, tokensOf(v)), sharesOf(v));
}

export function tokensFromSharesTruncated(v: ValidatorRecord, shares: bigint): bigint {
  return decQuoTruncate(decMulInt(shares, tokensOf(v)), sharesOf(v));
}

/** undefined where the SDK fails with ErrInsufficientShares (no tokens). */
export function sharesFromTokens(v: ValidatorRecord, amount: bigint): bigint | undefined {
  if (tokensOf(v) === 0n) return undefined;
  return decQuoInt(decMulInt(sharesOf(v), amount), tokensOf(v));
}

export function sharesFromTokensTruncated(v: ValidatorRecord, amount: bigint): bigint | undefined {
  if (tokensOf(v) === 0n) return undefined;
  return decQuoTruncate(decMulInt(sharesOf(v), amount), decFromInt(tokensOf(v)));
}

/** AddTokensFromDel: the validator with `amount` more tokens and the shares issued for them. */
export function addTokensFromDel(v: ValidatorRecord, amount: bigint): { v: ValidatorRecord; issued: bigint } {
  const issued = sharesOf(v) === 0n ? decFromInt(amount) : sharesFromTokens(v, amount)!;
  return {
    v: { ...v, tokens: (tokensOf(v) + amount).toString(), delegator_shares: formatDec(sharesOf(v) + issued) },
    issued,
  };
}

/** RemoveDelShares: the validator without `shares` and the tokens they were worth (truncated). */
export function removeDelShares(v: ValidatorRecord, shares: bigint): { v: ValidatorRecord; tokens: bigint } {
  const remaining = sharesOf(v) - shares;
  const tokens = remaining === 0n ? tokensOf(v) : decTruncateInt(tokensFromShares(v, shares));
  return {
    v: { ...v, tokens: (tokensOf(v) - tokens).toString(), delegator_shares: formatDec(remaining) },
    tokens,
  };
}
