/**
 * geth's prestateTracer (eth/tracers/native/prestate.go, 1.14): every account the transaction
 * touches, as it was before the transaction — `{balance, code?, nonce?, storage?}` with the slots it
 * read or wrote — or with `diffMode` `{post, pre}`: only what changed, `pre` before and `post` after.
 *
 * Accounts are looked up as geth does: sender, recipient (or created address), coinbase and EIP-7702
 * authorities at the start; then the targets of BALANCE, EXTCODESIZE/COPY/HASH, SELFDESTRUCT/CALL-family opcodes,
 * the slots of SLOAD/SSTORE and the addresses of CREATE/CREATE2 as they run. Balances are read through
 * the execution's state manager, i.e. bank balances in wei exactly as eth_getBalance reports them.
 *
 * Differs by design from geth: the coinbase here is the fee collector, which receives the whole fee
 * (base fee included, credited after the EVM run); its `post` balance includes it. A sender's first
 * transaction associates its EVM address with its Cosmos account and merges the balances: `pre` shows
 * the balance eth_getBalance showed before (the cast address's), `post` the merged one.
 */
import { boolFields } from './config.ts';
import { addrKey, addressOfWord, bareHex, hexBytes, memorySlice, quantity, word } from './hex.ts';
import { TxTracer, type TraceTxContext } from './tracer.ts';
import type { Enter, OpStep, TraceState, TxStart } from './types.ts';
import { generateAddress, generateAddress2 } from '@ethereumjs/util';
import { bigIntToUnpaddedBytes } from '@ethereumjs/util';
import { equalBytes } from '../../primitives/bytes.ts';

export interface Account {
  address: Uint8Array;
  balance?: bigint;
  nonce: bigint;
  code: Uint8Array;
  /** hex slot (no 0x) → 32-byte value */
  storage: Map<string, Uint8Array>;
  empty: boolean;
}

export interface AccountJson {
  balance?: string;
  code?: string;
  nonce?: number;
  storage?: Record<string, string>;
}

export class PrestateTracer extends TxTracer {
  readonly name: string = 'prestateTracer';
  private readonly diffMode: boolean;
  /** every touched account as it was before the transaction, with the slots it read or wrote */
  protected readonly pre = new Map<string, Account>();
  private readonly post = new Map<string, Account>();
  private readonly created = new Set<string>();
  private readonly deleted = new Set<string>();
  protected state?: TraceState;

  constructor(raw: Record<string, unknown> | undefined, ctx: TraceTxContext) {
    super(ctx);
    this.diffMode = boolFields('prestateTracer', raw, ['diffMode'] as const).diffMode;
  }

  override async onTxStart(tx: TxStart, state: TraceState): Promise<void> {
    this.state = state;
    const to = tx.to ?? tx.created!;
    if (!tx.to) this.created.add(addrKey(to));
    await this.lookupAccount(tx.from);
    await this.lookupAccount(to);
    await this.lookupAccount(tx.coinbase);
    for (const a of tx.authorities) await this.lookupAccount(a);
  }

  override async onOpcode(s: OpStep): Promise<void> {
    const st = s.stack;
    const n = st.length;
    const caller = s.address;
    switch (s.op) {
      case 0x54:
      case 0x55:
        if (n >= 1) await this.lookupStorage(caller, word(st[n - 1]));
        return;
      case 0x3c:
      case 0x3f:
      case 0x3b:
      case 0x31:
      case 0xff:
        if (n >= 1) {
          await this.lookupAccount(addressOfWord(st[n - 1]));
          if (s.op === 0xff) this.deleted.add(addrKey(caller));
        }
        return;
      case 0xf4:
      case 0xf1:
      case 0xfa:
      case 0xf2:
        if (n >= 5) await this.lookupAccount(addressOfWord(st[n - 2]));
        return;
      case 0xf0: {
        const addr = generateAddress(caller, bigIntToUnpaddedBytes(await s.state.nonce(caller)));
        await this.lookupAccount(addr);
        this.created.add(addrKey(addr));
        return;
      }
      case 0xf5:
        if (n >= 4) {
          const init = memorySlice(s.memory, st[n - 2], st[n - 3]);
          const addr = generateAddress2(caller, word(st[n - 4]), init);
          await this.lookupAccount(addr);
          this.created.add(addrKey(addr));
        }
        return;
    }
  }

  /** A call into an EIP-7702 delegated account runs the delegate's code: geth reads that account too. */
  override async onEnter(e: Enter): Promise<void> {
    if (e.type === 'CREATE' || e.type === 'CREATE2' || e.type === 'SELFDESTRUCT') return;
    const code = await this.state!.code(e.to);
    if (code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00) {
      await this.lookupAccount(code.slice(3));
    }
  }

  override async onTxEnd(): Promise<void> {
    if (this.diffMode) await this.processDiffState();
    // created contracts had no prestate (unless something lived at the address before)
    for (const a of this.created) {
      const acc = this.pre.get(a);
      if (acc?.empty) this.pre.delete(a);
    }
  }

  private async processDiffState(): Promise<void> {
    const state = this.state!;
    for (const [key, acc] of this.pre) {
      // a self-destructed account's state is pruned from post but kept in pre
      if (this.deleted.has(key)) continue;
      let modified = false;
      const post: Account = {
        address: acc.address,
        nonce: 0n,
        code: new Uint8Array(0),
        storage: new Map(),
        empty: false,
      };
      const balance = await state.balance(acc.address);
      const nonce = await state.nonce(acc.address);
      const code = await state.code(acc.address);
      if (balance !== acc.balance) {
        modified = true;
        post.balance = balance;
      }
      if (nonce !== acc.nonce) {
        modified = true;
        post.nonce = nonce;
      }
      if (!equalBytes(code, acc.code)) {
        modified = true;
        post.code = code;
      }
      for (const [slot, val] of [...acc.storage]) {
        if (isZero(val)) acc.storage.delete(slot);
        const now = await state.storage(acc.address, Buffer.from(slot, 'hex'));
        if (equalBytes(val, now)) {
          acc.storage.delete(slot);
        } else {
          modified = true;
          if (!isZero(now)) post.storage.set(slot, now);
        }
      }
      if (modified) this.post.set(key, post);
      else this.pre.delete(key);
    }
  }

  private async lookupAccount(address: Uint8Array): Promise<void> {
    const key = addrKey(address);
    if (this.pre.has(key)) return;
    const state = this.state!;
    const acc: Account = {
      address,
      balance: await state.balance(address),
      nonce: await state.nonce(address),
      code: await state.code(address),
      storage: new Map(),
      empty: false,
    };
    // diffMode may print the account twice (pre and post)
    this.charge((this.diffMode ? 2 : 1) * (160 + 2 * acc.code.length));
    acc.empty = !(
      acc.nonce > 0n ||
      acc.code.length > 0 ||
      acc.storage.size > 0 ||
      (acc.balance ?? 0n) !== 0n
    );
    this.pre.set(key, acc);
  }

  private async lookupStorage(address: Uint8Array, slot: Uint8Array): Promise<void> {
    const acc = this.pre.get(addrKey(address));
    if (!acc) return;
    const key = bareHex(slot);
    if (acc.storage.has(key)) return;
    this.charge((this.diffMode ? 2 : 1) * 134);
    acc.storage.set(key, await this.state!.storage(address, slot));
  }

  result():
    Record<string, AccountJson> | { post: Record<string, AccountJson>; pre: Record<string, AccountJson> } {
    if (this.diffMode) return { post: stateJson(this.post), pre: stateJson(this.pre) };
    return stateJson(this.pre);
  }
}

const isZero = (b: Uint8Array) => b.every((x) => x === 0);

function stateJson(m: Map<string, Account>): Record<string, AccountJson> {
  const out: Record<string, AccountJson> = {};
  for (const key of [...m.keys()].sort()) {
    const a = m.get(key)!;
    const j: AccountJson = {};
    if (a.balance !== undefined) j.balance = quantity(a.balance);
    if (a.code.length > 0) j.code = hexBytes(a.code);
    if (a.nonce !== 0n) j.nonce = Number(a.nonce);
    if (a.storage.size > 0) {
      j.storage = {};
      for (const slot of [...a.storage.keys()].sort())
        j.storage['0x' + slot] = hexBytes(a.storage.get(slot)!);
    }
    out['0x' + key] = j;
  }
  return out;
}
