/**
 * What an operator types for amounts, rates and gas prices, turned into what goes on the wire: coins
 * in uchain, and the SDK's LegacyDec as protobuf carries it (the integer of 18-decimal atomics, so
 * 0.1 is "100000000000000000", as CosmJS's `Decimal.fromUserInput(x, 18).atomics` writes it).
 */
import { BASE_DENOM } from '../../primitives/identity.ts';
import { ChainError } from '../../util/errors.ts';

const DEC_PLACES = 18;
const DEC_ONE = 10n ** BigInt(DEC_PLACES);

/** `<n>uchain`, n a positive integer. */
export function parseCoin(text: string, what: string): bigint {
  const m = /^(\d+)uchain$/.exec(text.trim());
  if (!m || BigInt(m[1]) === 0n)
    throw new ChainError(
      'BAD_ARGUMENT',
      `${what}: expected a positive amount of ${BASE_DENOM} such as 1000000${BASE_DENOM}, got ${JSON.stringify(text)}`,
    );
  return BigInt(m[1]);
}

/** A decimal such as 0.1 or 1 with at most 18 places, as LegacyDec atomics. */
export function decimalAtomics(text: string, what: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text.trim());
  if (!m)
    throw new ChainError(
      'BAD_ARGUMENT',
      `${what}: expected a decimal with at most ${DEC_PLACES} places such as 0.10, got ${JSON.stringify(text)}`,
    );
  return BigInt(m[1]) * DEC_ONE + BigInt((m[2] ?? '').padEnd(DEC_PLACES, '0'));
}

/** A commission rate: a decimal between 0 and 1, as the LegacyDec string of the message. */
export function parseRate(text: string, what: string): string {
  const atomics = decimalAtomics(text, what);
  if (atomics > DEC_ONE)
    throw new ChainError('BAD_ARGUMENT', `${what}: a rate is at most 1, got ${JSON.stringify(text)}`);
  return atomics.toString();
}

/** A positive integer amount of uchain given without a denom (min-self-delegation is an sdk.Int). */
export function parsePositiveInteger(text: string, what: string): string {
  if (!/^\d+$/.test(text.trim()) || BigInt(text.trim()) === 0n)
    throw new ChainError('BAD_ARGUMENT', `${what}: expected a positive integer, got ${JSON.stringify(text)}`);
  return BigInt(text.trim()).toString();
}

/** A gas price such as `0.001uchain`: uchain per unit of gas, as LegacyDec atomics. */
export function parseGasPrice(text: string, what: string): bigint {
  const m = /^(\d+(?:\.\d{1,18})?)uchain$/.exec(text.trim());
  if (!m)
    throw new ChainError(
      'BAD_ARGUMENT',
      `${what}: expected a gas price such as 0.001${BASE_DENOM}, got ${JSON.stringify(text)}`,
    );
  return decimalAtomics(m[1], what);
}

/** The fee for `gas` at `priceAtomics` per unit, rounded up as the SDK's fee check rounds the minimum. */
export function feeFor(gas: bigint, priceAtomics: bigint): bigint {
  return (gas * priceAtomics + DEC_ONE - 1n) / DEC_ONE;
}
