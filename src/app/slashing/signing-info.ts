/**
 * Signing infos and missed-blocks bitmaps in the slashing store. The bitmap is one value per
 * validator and only a bit that changes is written, so a validator that signs every block writes
 * nothing. `index_offset` is not stored: it is the blocks since `start_height`.
 */
import { ValidatorSigningInfo } from 'cosmjs-types/cosmos/slashing/v1beta1/slashing';
import { toBech32 } from '../../crypto/accounts.ts';
import { BECH32_ACCOUNT_PREFIX } from '../../primitives/identity.ts';
import type { StateReader } from '../../state/overlay.ts';
import { entriesUnder, type StateRanges, type StateWriter } from '../state-access.ts';
import { slashingKeys, STORES } from '../store-keys.ts';

export const BECH32_VALCONS_PREFIX = `${BECH32_ACCOUNT_PREFIX}valcons`;

export interface SigningInfo {
  consAddress: Uint8Array;
  startHeight: number;
  jailedUntil: { seconds: number; nanos: number };
  tombstoned: boolean;
  missedBlocksCounter: number;
}

/** time.Unix(0, 0): the jailed_until of a validator never jailed. */
export const NEVER_JAILED = { seconds: 0, nanos: 0 };

/** The SDK's DoubleSignJailEndTime, 9999-12-31T23:59:59Z: jailed for good. */
export const DOUBLE_SIGN_JAIL_END = { seconds: 253402300799, nanos: 0 };

export const consAddressBech32 = (consAddress: Uint8Array) => toBech32(BECH32_VALCONS_PREFIX, consAddress);

export function encodeSigningInfo(i: SigningInfo): Uint8Array {
  return ValidatorSigningInfo.encode({
    address: consAddressBech32(i.consAddress),
    startHeight: BigInt(i.startHeight),
    indexOffset: 0n,
    jailedUntil: { seconds: BigInt(i.jailedUntil.seconds), nanos: i.jailedUntil.nanos },
    tombstoned: i.tombstoned,
    missedBlocksCounter: BigInt(i.missedBlocksCounter),
  }).finish();
}

export function decodeSigningInfo(consAddress: Uint8Array, bytes: Uint8Array): SigningInfo {
  const p = ValidatorSigningInfo.decode(bytes);
  return {
    consAddress,
    startHeight: Number(p.startHeight),
    jailedUntil: { seconds: Number(p.jailedUntil.seconds), nanos: p.jailedUntil.nanos },
    tombstoned: p.tombstoned,
    missedBlocksCounter: Number(p.missedBlocksCounter),
  };
}

/** The index_offset the SDK reports at `height`: the blocks since the validator's start height. */
export const indexOffset = (info: SigningInfo, height: number) => Math.max(0, height - info.startHeight);

export class SigningInfoReader {
  protected readonly state: StateReader;
  constructor(state: StateReader) {
    this.state = state;
  }

  get(consAddress: Uint8Array): SigningInfo | undefined {
    const raw = this.state.get(STORES.slashing, slashingKeys.signingInfo(consAddress));
    return raw ? decodeSigningInfo(consAddress, raw) : undefined;
  }

  missed(consAddress: Uint8Array, position: number): boolean {
    const bitmap = this.state.get(STORES.slashing, slashingKeys.missedBlocks(consAddress));
    const byte = position >> 3;
    return bitmap !== undefined && byte < bitmap.length && (bitmap[byte] & (1 << (position & 7))) !== 0;
  }
}

export class SigningInfos extends SigningInfoReader {
  private readonly writer: StateWriter;
  constructor(state: StateWriter) {
    super(state);
    this.writer = state;
  }

  set(info: SigningInfo): void {
    this.writer.set(STORES.slashing, slashingKeys.signingInfo(info.consAddress), encodeSigningInfo(info));
  }

  /** Sets or clears one bit of a `window`-bit bitmap; a bitmap left all clear is deleted. */
  setMissed(consAddress: Uint8Array, position: number, missed: boolean, window: number): void {
    const key = slashingKeys.missedBlocks(consAddress);
    const bitmap = new Uint8Array(Math.ceil(window / 8));
    const old = this.writer.get(STORES.slashing, key);
    if (old) bitmap.set(old.subarray(0, bitmap.length));
    const mask = 1 << (position & 7);
    bitmap[position >> 3] = missed ? bitmap[position >> 3] | mask : bitmap[position >> 3] & ~mask;
    this.writer.set(STORES.slashing, key, bitmap.some((b) => b !== 0) ? bitmap : undefined);
  }

  clearMissed(consAddress: Uint8Array): void {
    const key = slashingKeys.missedBlocks(consAddress);
    if (this.writer.get(STORES.slashing, key) !== undefined) this.writer.set(STORES.slashing, key, undefined);
  }
}

/** Every signing info in store-key order (by consensus address), with its key: what SigningInfos pages. */
export async function listSigningInfos(
  state: StateRanges,
): Promise<{ key: Uint8Array; info: SigningInfo }[]> {
  const prefix = slashingKeys.signingInfo(new Uint8Array(0)).subarray(0, 1);
  return (await entriesUnder(state, STORES.slashing, prefix)).map((e) => ({
    key: e.key,
    info: decodeSigningInfo(e.key.slice(2), e.value),
  }));
}
