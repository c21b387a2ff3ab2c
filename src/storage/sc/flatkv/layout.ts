/**
 * How flatkv lays the `evm` store out in flat tables. The evm module's key layout (one prefix byte,
 * the same bytes storage/ss/evm-keys.ts routes on; sc cannot import ss, so they are repeated here):
 *   0x03 ‖ address(20) ‖ slot(32) storage   0x07 ‖ address code   0x08 ‖ address code hash
 *   0x0a ‖ address nonce                    anything else: misc
 * Physical tables (one-byte prefixes in the KV store):
 *   'a' ‖ address          account row = nonce and code hash together (one read serves both)
 *   'c' ‖ address          code
 *   's' ‖ address ‖ slot   storage
 *   'm' ‖ evm key          misc
 *   'M' ‖ name             metadata;   'U' ‖ u64be(version)  undo log (previous values, for rollback)
 * The lattice hash is over the logical (evm key, value) rows, so it does not depend on this layout.
 */
export const EVM_PREFIX = { storage: 0x03, code: 0x07, codehash: 0x08, nonce: 0x0a } as const;

export const TABLES = ['account', 'code', 'storage', 'misc'] as const;
export type Table = (typeof TABLES)[number];

const T_ACCOUNT = 0x61; // 'a'
const T_CODE = 0x63; // 'c'
const T_STORAGE = 0x73; // 's'
const T_MISC = 0x6d; // 'm'
export const T_META = 0x4d; // 'M'
export const T_UNDO = 0x55; // 'U'

export type Field = 'nonce' | 'codehash' | undefined;

/**
 * Where one evm key lives: its table, which field of an account row, and how its physical key is made
 * (the table's prefix byte, then the evm key without its first `skip` bytes). The descriptors are
 * shared constants, so locating a key allocates nothing; the physical key is built only where a KV
 * operation needs it.
 */
export interface Location {
  readonly table: Table;
  readonly field: Field;
  readonly prefix: number;
  readonly skip: 0 | 1;
}

const AT_NONCE: Location = { table: 'account', field: 'nonce', prefix: T_ACCOUNT, skip: 1 };
const AT_CODEHASH: Location = { table: 'account', field: 'codehash', prefix: T_ACCOUNT, skip: 1 };
const AT_CODE: Location = { table: 'code', field: undefined, prefix: T_CODE, skip: 1 };
const AT_STORAGE: Location = { table: 'storage', field: undefined, prefix: T_STORAGE, skip: 1 };
const AT_MISC: Location = { table: 'misc', field: undefined, prefix: T_MISC, skip: 0 };

export function locate(key: Uint8Array): Location {
  const p = key[0];
  if (key.length === 21) {
    if (p === EVM_PREFIX.nonce) return AT_NONCE;
    if (p === EVM_PREFIX.codehash) return AT_CODEHASH;
    if (p === EVM_PREFIX.code) return AT_CODE;
  }
  if (key.length === 53 && p === EVM_PREFIX.storage) return AT_STORAGE;
  return AT_MISC;
}

function withPrefix(p: number, rest: Uint8Array): Uint8Array {
  const out = new Uint8Array(rest.length + 1);
  out[0] = p;
  out.set(rest, 1);
  return out;
}

export function physicalLength(key: Uint8Array, loc: Location): number {
  return key.length - loc.skip + 1;
}

/** Writes the physical key of `key` into `out` (of physicalLength) and returns `out`. */
export function writePhysical(key: Uint8Array, loc: Location, out: Uint8Array): Uint8Array {
  out[0] = loc.prefix;
  for (let i = loc.skip, o = 1; i < key.length; i++, o++) out[o] = key[i];
  return out;
}

export function physicalKey(key: Uint8Array, loc: Location = locate(key)): Uint8Array {
  return writePhysical(key, loc, new Uint8Array(physicalLength(key, loc)));
}

/** The evm keys stored in one physical row (account rows hold two). */
export function logicalKeys(
  physical: Uint8Array,
): { table: Table; keys: { key: Uint8Array; field: Field }[] } | undefined {
  const rest = physical.subarray(1);
  switch (physical[0]) {
    case T_ACCOUNT:
      return {
        table: 'account',
        keys: [
          { key: withPrefix(EVM_PREFIX.codehash, rest), field: 'codehash' },
          { key: withPrefix(EVM_PREFIX.nonce, rest), field: 'nonce' },
        ],
      };
    case T_CODE:
      return { table: 'code', keys: [{ key: withPrefix(EVM_PREFIX.code, rest), field: undefined }] };
    case T_STORAGE:
      return { table: 'storage', keys: [{ key: withPrefix(EVM_PREFIX.storage, rest), field: undefined }] };
    case T_MISC:
      return { table: 'misc', keys: [{ key: rest.slice(), field: undefined }] };
    default:
      return undefined;
  }
}

export interface AccountRow {
  nonce: Uint8Array | undefined;
  codehash: Uint8Array | undefined;
}

/** Account row: flags (bit0 nonce, bit1 code hash) ‖ [u8 len ‖ nonce] ‖ [u8 len ‖ code hash]. */
export function encodeAccount(a: AccountRow): Uint8Array | undefined {
  if (!a.nonce && !a.codehash) return undefined;
  const n = a.nonce ?? new Uint8Array(0);
  const c = a.codehash ?? new Uint8Array(0);
  if (n.length > 255 || c.length > 255) throw new RangeError('account fields are limited to 255 bytes');
  const out = new Uint8Array(3 + n.length + c.length);
  out[0] = (a.nonce ? 1 : 0) | (a.codehash ? 2 : 0);
  out[1] = n.length;
  out.set(n, 2);
  out[2 + n.length] = c.length;
  out.set(c, 3 + n.length);
  return out;
}

export function decodeAccount(row: Uint8Array | undefined): AccountRow {
  if (!row) return { nonce: undefined, codehash: undefined };
  const nl = row[1];
  const cl = row[2 + nl];
  return {
    nonce: row[0] & 1 ? row.subarray(2, 2 + nl) : undefined,
    codehash: row[0] & 2 ? row.subarray(3 + nl, 3 + nl + cl) : undefined,
  };
}

export function metaKey(name: string): Uint8Array {
  return withPrefix(T_META, new TextEncoder().encode(name));
}

export function undoKey(version: number): Uint8Array {
  const out = new Uint8Array(9);
  out[0] = T_UNDO;
  new DataView(out.buffer).setBigUint64(1, BigInt(version));
  return out;
}
