/**
 * A dev chain's EVM state as anvil dumps and loads it (`anvil_dumpState`, `--dump-state`): every
 * account with a balance, a nonce, code or storage, in anvil's JSON shape
 * (`{ "accounts": { "0x…": { nonce, balance, code, storage: { slot: value } } } }`), so a state
 * prepared on one dev chain, anvil's or chaind's, loads into another. Loading is a state patch
 * (dev-state-patch.ts) of every account: it is a block of the chain like any edit.
 */
import { fromHex, toHex } from '../primitives/bytes.ts';
import { BASE_DENOM } from '../primitives/identity.ts';
import type { StateReader } from '../state/overlay.ts';
import { ChainError } from '../util/errors.ts';
import { AccountReader } from './accounts.ts';
import type { DevStateEdit } from './dev-state-patch.ts';
import { EvmReader } from './evm.ts';
import { entriesUnder, type StateRanges } from './state-access.ts';
import { bankKeys, evmKeys, STORES } from './store-keys.ts';

export interface DumpedAccount {
  address: Uint8Array;
  nonce: bigint;
  balance: bigint;
  code: Uint8Array;
  /** Non-zero slots, in slot order: [slot, value], 32 bytes each. */
  storage: [Uint8Array, Uint8Array][];
}

export interface StateDump {
  /** The height the state was read at (anvil's `best_block_number`). */
  height?: number;
  accounts: DumpedAccount[];
}

const hex = (b: Uint8Array) => '0x' + toHex(b);

/**
 * Every EVM account of `state`: those with a nonce, code, storage, or a balance (held by its
 * associated Cosmos address or its cast), in address order.
 */
export async function dumpState(
  ranges: StateRanges,
  read: <T>(fn: (state: StateReader) => T) => Promise<T>,
): Promise<DumpedAccount[]> {
  const addresses = new Map<string, Uint8Array>();
  const note = (a: Uint8Array) => addresses.set(toHex(a), a);
  const underEvm = async (prefix: Uint8Array) => entriesUnder(ranges, STORES.evm, prefix);
  for (const e of await underEvm(evmKeys.nonce(new Uint8Array(0)))) note(e.key.slice(1, 21));
  for (const e of await underEvm(evmKeys.codeHash(new Uint8Array(0)))) note(e.key.slice(1, 21));
  const storage = new Map<string, [Uint8Array, Uint8Array][]>();
  for (const e of await underEvm(evmKeys.storagePrefix(new Uint8Array(0)))) {
    const address = e.key.slice(1, 21);
    note(address);
    const slots = storage.get(toHex(address)) ?? [];
    slots.push([e.key.slice(21), e.value.slice()]);
    storage.set(toHex(address), slots);
  }
  // balances are the bank's, by holder: an associated holder's EVM address is its association
  const holders: Uint8Array[] = [];
  for (const e of await entriesUnder(ranges, STORES.bank, Uint8Array.of(0x02))) {
    const len = e.key[1];
    const denom = new TextDecoder().decode(e.key.subarray(2 + len));
    if (denom === BASE_DENOM) holders.push(e.key.slice(2, 2 + len));
  }
  for (const e of await entriesUnder(
    ranges,
    STORES.bank,
    bankKeys.weiRemainder(new Uint8Array(0)).subarray(0, 1),
  ))
    holders.push(e.key.slice(2, 2 + e.key[1]));
  return read((state) => {
    const evm = new EvmReader(state);
    for (const holder of holders) {
      const associated = evm.evmAddressOf(holder);
      if (associated) note(associated);
      else if (holder.length === 20) note(holder);
    }
    const accounts = new AccountReader(state);
    return [...addresses.keys()].sort().map((key) => {
      const address = addresses.get(key)!;
      return {
        address,
        nonce: accounts.nonce(address),
        balance: accounts.balance(address),
        code: accounts.code(address),
        storage: storage.get(key) ?? [],
      };
    });
  });
}

/** anvil's JSON of a dump. */
export function encodeStateDump(dump: StateDump): string {
  const accounts: Record<string, unknown> = {};
  for (const a of dump.accounts) {
    accounts[hex(a.address)] = {
      nonce: Number(a.nonce),
      balance: '0x' + a.balance.toString(16),
      code: hex(a.code),
      storage: Object.fromEntries(a.storage.map(([slot, value]) => [hex(slot), hex(value)])),
    };
  }
  return JSON.stringify({
    ...(dump.height !== undefined ? { best_block_number: '0x' + dump.height.toString(16) } : {}),
    accounts,
  });
}

/** A dump in anvil's JSON (anything else in it, anvil's blocks and transactions, is not loaded). */
export function decodeStateDump(text: string): StateDump {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad('it is not JSON');
  }
  const accounts = (parsed as { accounts?: unknown } | null)?.accounts;
  if (typeof accounts !== 'object' || accounts === null || Array.isArray(accounts))
    throw bad('it has no "accounts" object');
  const out: DumpedAccount[] = [];
  for (const [addr, v] of Object.entries(accounts)) {
    const where = `account ${addr}`;
    if (!/^0x[0-9a-fA-F]{40}$/.test(addr)) throw bad(`${where}: not a 20-byte address`);
    if (typeof v !== 'object' || v === null) throw bad(`${where}: not an object`);
    const r = v as Record<string, unknown>;
    const storage: [Uint8Array, Uint8Array][] = [];
    const slots = r.storage ?? {};
    if (typeof slots !== 'object' || slots === null) throw bad(`${where}: storage is not an object`);
    for (const [slot, value] of Object.entries(slots))
      storage.push([word(slot, `${where} storage slot`), word(value, `${where} storage value`)]);
    out.push({
      address: fromHex(addr.slice(2).toLowerCase()),
      nonce: number(r.nonce ?? 0, `${where} nonce`),
      balance: number(r.balance ?? '0x0', `${where} balance`),
      code: bytes(r.code ?? '0x', `${where} code`),
      storage,
    });
  }
  return { accounts: out };
}

/** The edits that make `state` hold the dumped accounts (their slots set; other slots kept, as anvil's load). */
export function editsOfDump(dump: StateDump): DevStateEdit[] {
  const edits: DevStateEdit[] = [];
  for (const a of dump.accounts) {
    edits.push(
      { op: 'setBalance', address: a.address, wei: a.balance },
      { op: 'setNonce', address: a.address, nonce: a.nonce },
      { op: 'setCode', address: a.address, code: a.code },
    );
    for (const [slot, value] of a.storage) edits.push({ op: 'setStorage', address: a.address, slot, value });
  }
  return edits;
}

function number(v: unknown, what: string): bigint {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)) return BigInt(v);
  if (typeof v === 'string' && /^[0-9]{1,78}$/.test(v)) return BigInt(v);
  throw bad(`${what} is not a number`);
}

function bytes(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw bad(`${what} is not hex bytes`);
  return fromHex(v.slice(2).toLowerCase());
}

/** A 32-byte word written as a hex quantity or 32 bytes (anvil writes U256 quantities). */
function word(v: unknown, what: string): Uint8Array {
  const n = number(v, what);
  if (n >= 2n ** 256n) throw bad(`${what} does not fit in 32 bytes`);
  return fromHex(n.toString(16).padStart(64, '0'));
}

function bad(what: string): ChainError {
  return new ChainError('BAD_DEV_RECORD', `the state dump does not load: ${what}`);
}
