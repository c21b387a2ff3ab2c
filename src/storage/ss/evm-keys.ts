/**
 * EVM store key layout shared by the evm module (which writes these keys) and the EVM SS (which
 * routes them). Every key of the `evm` store starts with one prefix byte:
 *
 *   0x03 storage   ‖ address(20) ‖ slot(32)   contract storage slots
 *   0x07 code      ‖ address(20)              contract bytecode
 *   0x08 codehash  ‖ address(20)              keccak-256 of the code
 *   0x0a nonce     ‖ address(20)              account nonce
 *   any other byte                            everything else (address associations, params, …):
 *                                             the "legacy" database
 *
 * The byte values follow the layout of the widely deployed Cosmos EVM module so that snapshots keep
 * their meaning; they are part of the on-disk format: changing one requires a state sync.
 */
export const EVM_STORE = 'evm';

export const EVM_KEY_PREFIX = {
  storage: 0x03,
  code: 0x07,
  codehash: 0x08,
  nonce: 0x0a,
} as const;

/** The five EVM SS databases of `evm-ss-separate-dbs = true`, in the order they are written. */
export const EVM_SS_DATABASES = ['nonce', 'codehash', 'code', 'storage', 'legacy'] as const;
export type EvmSsDatabase = (typeof EVM_SS_DATABASES)[number];

const INDEX_BY_PREFIX = new Int8Array(256).fill(EVM_SS_DATABASES.indexOf('legacy'));
for (const [name, prefix] of Object.entries(EVM_KEY_PREFIX)) {
  INDEX_BY_PREFIX[prefix] = EVM_SS_DATABASES.indexOf(name as EvmSsDatabase);
}

/** Index into EVM_SS_DATABASES of the database that holds this `evm` store key. */
export function evmDatabaseIndex(key: Uint8Array): number {
  return key.length === 0 ? INDEX_BY_PREFIX[0] : INDEX_BY_PREFIX[key[0]];
}
