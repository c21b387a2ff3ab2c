/**
 * The chain's stores and the byte layout of their keys. These bytes are consensus-critical (they are
 * hashed into the app hash) and part of the on-disk and snapshot format: change one only with a
 * chain upgrade.
 */
import { concatBytes, utf8 } from '../primitives/bytes.ts';
import { EVM_KEY_PREFIX, EVM_STORE } from '../storage/ss/evm-keys.ts';

export const STORES = {
  acc: 'acc',
  bank: 'bank',
  staking: 'staking',
  evm: EVM_STORE,
  params: 'params',
  slashing: 'slashing',
} as const;
/** Every store of the chain, in name order (the order State Commit applies them). */
export const ALL_STORES = Object.values(STORES).sort();

const denoms = new Map<string, Uint8Array>();
const denomBytes = (denom: string): Uint8Array => {
  let d = denoms.get(denom);
  if (d === undefined) {
    d = utf8(denom);
    if (denoms.size < 1024) denoms.set(denom, d);
  }
  return d;
};

// The keys below are built for every state access of block execution and of the RPC's reads (a
// storage slot per SLOAD): each is one allocation, without the intermediate arrays of concatBytes.

/** `prefix ‖ a` */
function prefixed(prefix: number, a: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + a.length);
  k[0] = prefix;
  k.set(a, 1);
  return k;
}

/** `prefix ‖ len(a) ‖ a`: a Cosmos length-prefixed address after its prefix */
function prefixedLp(prefix: number, a: Uint8Array): Uint8Array {
  const k = new Uint8Array(2 + a.length);
  k[0] = prefix;
  k[1] = a.length;
  k.set(a, 2);
  return k;
}

export const accKeys = {
  /** BaseAccount (protobuf Any) by Cosmos address */
  account: (addr: Uint8Array) => prefixed(0x01, addr),
  /** next account number, u64 big-endian */
  nextAccountNumber: Uint8Array.of(0x02),
};

export const bankKeys = {
  /** total supply of a denom, decimal string */
  supply: (denom: string) => concatBytes(Uint8Array.of(0x00), utf8(denom)),
  /** balance of a denom, decimal string (the Cosmos SDK's layout) */
  balance: (addr: Uint8Array, denom: string) => {
    // read and written several times per transaction: one allocation, the denom encoded once
    const d = denomBytes(denom);
    const k = new Uint8Array(2 + addr.length + d.length);
    k[0] = 0x02;
    k[1] = addr.length;
    k.set(addr, 2);
    k.set(d, 2 + addr.length);
    return k;
  },
  /** wei below one uchain, in [0, 10^12), decimal string; absent = 0 */
  weiRemainder: (addr: Uint8Array) => prefixedLp(0x05, addr),
};

/** `prefix ‖ len(a) ‖ a ‖ len(b) ‖ b ‖ …`: several length-prefixed addresses after a prefix */
function prefixedLps(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  return concatBytes(Uint8Array.of(prefix), ...parts.flatMap((p) => [Uint8Array.of(p.length), p]));
}

export const stakingKeys = {
  /** the bonded set CometBFT was last told of: JSON [{operator (hex), power}] in operator order */
  lastPowers: Uint8Array.of(0x11),
  /** every validator's operator (bech32), JSON list in text order: what execution iterates */
  validatorIndex: Uint8Array.of(0x20),
  /** validator record (canonical JSON, the REST shape) by operator address bytes */
  validator: (operator: Uint8Array) => prefixedLp(0x21, operator),
  /** operator address bytes by 20-byte consensus address */
  validatorByConsAddr: (consAddress: Uint8Array) => prefixedLp(0x22, consAddress),
  /** delegation (JSON) by delegator, validator */
  delegation: (delegator: Uint8Array, validator: Uint8Array) => prefixedLps(0x31, delegator, validator),
  /** unbonding delegation with its entries (JSON) by delegator, validator */
  unbondingDelegation: (delegator: Uint8Array, validator: Uint8Array) =>
    prefixedLps(0x32, delegator, validator),
  /** the delegators (hex) with an unbonding delegation from a validator: JSON list (slashing walks it) */
  unbondingByValidator: (validator: Uint8Array) => prefixedLp(0x33, validator),
  /** redelegation with its entries (JSON) by delegator, source, destination */
  redelegation: (delegator: Uint8Array, src: Uint8Array, dst: Uint8Array) =>
    prefixedLps(0x34, delegator, src, dst),
  /** the redelegations (JSON [[delegator, src, dst] hex]) from a source validator (slashing walks it) */
  redelegationsBySrc: (src: Uint8Array) => prefixedLp(0x35, src),
  /** the redelegations (JSON [[delegator, src, dst] hex]) of a delegator (transitive-redelegation check) */
  redelegationsByDelegator: (delegator: Uint8Array) => prefixedLp(0x36, delegator),
  /** what matures when: JSON list of queue items ordered by completion time */
  unbondingQueue: Uint8Array.of(0x41),
};

export const slashingKeys = {
  /** protobuf ValidatorSigningInfo (index_offset 0: it is derived) by consensus address */
  signingInfo: (consAddress: Uint8Array) => prefixedLp(0x01, consAddress),
  /** the missed-blocks bitmap, ceil(window / 8) bytes, bit i = position i; absent = nothing missed */
  missedBlocks: (consAddress: Uint8Array) => prefixedLp(0x02, consAddress),
};

/** The evm store's prefixes are shared with the EVM state store's routing (storage/ss/evm-keys.ts). */
export const evmKeys = {
  associationByEvm: (evm: Uint8Array) => prefixed(0x01, evm),
  associationByCosmos: (cosmos: Uint8Array) => prefixed(0x02, cosmos),
  storage: (addr: Uint8Array, slot: Uint8Array) => {
    const k = new Uint8Array(1 + addr.length + slot.length);
    k[0] = EVM_KEY_PREFIX.storage;
    k.set(addr, 1);
    k.set(slot, 1 + addr.length);
    return k;
  },
  storagePrefix: (addr: Uint8Array) => prefixed(EVM_KEY_PREFIX.storage, addr),
  code: (addr: Uint8Array) => prefixed(EVM_KEY_PREFIX.code, addr),
  codeHash: (addr: Uint8Array) => prefixed(EVM_KEY_PREFIX.codehash, addr),
  nonce: (addr: Uint8Array) => prefixed(EVM_KEY_PREFIX.nonce, addr),
  /** A dev chain's COINBASE for the blocks from the next one on (hardhat_setCoinbase); absent: the fee collector. */
  devCoinbase: Uint8Array.of(0x0d),
  /** A dev chain's PREVRANDAO for the next block only (hardhat_setPrevRandao); absent: zero. */
  devPrevRandao: Uint8Array.of(0x0e),
  /** A dev chain's block gas limit from the next block on (evm_setBlockGasLimit); absent: the genesis's. */
  devGasLimit: Uint8Array.of(0x0f),
};

export const paramsKeys = {
  /** a module's params as canonical JSON */
  module: (name: string) => utf8(name),
};
