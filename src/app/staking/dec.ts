/**
 * The Cosmos SDK's `LegacyDec` as a bigint scaled by 10^18: shares, commission rates and slash
 * fractions. The rounding is the SDK's, because who gets the last unit of a share depends on it:
 * `Mul` and `Quo` round half to even, `…Truncate` and `QuoInt` truncate toward zero.
 */
export const DEC_ONE = 10n ** 18n;
const HALF = DEC_ONE / 2n;

export class DecError extends RangeError {}

/** "0.05", "1", "12.500000000000000000" (at most 18 decimals) → the scaled value. */
export function parseDec(text: string, what = 'decimal'): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(text);
  if (!m) throw new DecError(`${what} ${JSON.stringify(text)} is not a decimal with at most 18 places`);
  const v = BigInt(m[2]) * DEC_ONE + BigInt((m[3] ?? '').padEnd(18, '0') || '0');
  return m[1] === '-' ? -v : v;
}

/** The SDK's string form: always 18 decimals ("0.050000000000000000"). */
export function formatDec(d: bigint): string {
  const neg = d < 0n;
  const a = neg ? -d : d;
  return `${neg ? '-' : ''}${a / DEC_ONE}.${(a % DEC_ONE).toString().padStart(18, '0')}`;
}

export const decFromInt = (i: bigint): bigint => i * DEC_ONE;

/** Removes 18 digits, rounding half to even (the SDK's chopPrecisionAndRound). */
function chopRound(x: bigint): bigint {
  if (x < 0n) return -chopRound(-x);
  const q = x / DEC_ONE;
  const r = x % DEC_ONE;
  if (r < HALF) return q;
  if (r > HALF) return q + 1n;
  return q % 2n === 0n ? q : q + 1n;
}

export const decMul = (a: bigint, b: bigint): bigint => chopRound(a * b);
export const decMulTruncate = (a: bigint, b: bigint): bigint => (a * b) / DEC_ONE;
export const decMulInt = (a: bigint, i: bigint): bigint => a * i;

function nonZero(b: bigint): bigint {
  if (b === 0n) throw new DecError('division by zero');
  return b;
}

export const decQuo = (a: bigint, b: bigint): bigint => chopRound((a * DEC_ONE * DEC_ONE) / nonZero(b));
export const decQuoTruncate = (a: bigint, b: bigint): bigint => (a * DEC_ONE) / nonZero(b);
export const decQuoInt = (a: bigint, i: bigint): bigint => a / nonZero(i);

/** The integer part, toward zero (TruncateInt). */
export const decTruncateInt = (d: bigint): bigint => d / DEC_ONE;
/** Rounded half to even to an integer (RoundInt). */
export const decRoundInt = (d: bigint): bigint => chopRound(d);
