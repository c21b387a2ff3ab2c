/**
 * Differential block runs: each block runs on both block engines (revm and ethereumjs) from identical
 * state, through the real `executeBlock`, and everything a block yields is compared — receipts,
 * rejected txs, the block's state changes, the address-index appearances — then each engine's changes
 * are committed into its own State Commit store (lmdb, as a node opens it) and the app hashes
 * compared. The first difference throws a `BlockDifference` naming the height, the tx (index, kind,
 * hash), the field and both values.
 */
import { keccak256 } from 'ethers';
import { NO_CONSENSUS_INFO } from '../../../src/app/block-hooks.ts';
import { Evm, FEE_COLLECTOR_ADDRESS } from '../../../src/app/evm.ts';
import { initChainState } from '../../../src/app/init-chain.ts';
import { ALL_STORES, STORES } from '../../../src/app/store-keys.ts';
import { baseFeeParamsFrom, type BaseFeeParams } from '../../../src/chain/base-fee.ts';
import {
  type BlockContext,
  type ExecutedBlock,
  executeBlock,
  readBaseFee,
} from '../../../src/chain/block-execution.ts';
import type { BlockEngine } from '../../../src/execution/block-engine.ts';
import { createChainCommon, type Common } from '../../../src/execution/chain-config.ts';
import { decodeEthTransaction } from '../../../src/execution/transactions.ts';
import { fromHex, toHex } from '../../../src/primitives/bytes.ts';
import { StateOverlay, type StoreChanges } from '../../../src/state/overlay.ts';
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import type { Receipt } from '../../../src/storage/blocks/types.ts';
import { CHAIN_ID, devGenesis } from '../dev-chain.ts';
import type { ChainView, GeneratedTx } from './generator.ts';
import { KNOWN_DIFFERENCES, type KnownDifference } from './known-differences.ts';

export const BLOCK_GAS_LIMIT = 30_000_000n;

/** The first difference between the engines' runs of a block. */
export class BlockDifference extends Error {
  readonly height: number;
  readonly field: string;
  constructor(height: number, where: string, field: string, a: [string, unknown], b: [string, unknown]) {
    super(`block ${height}, ${where}: ${field} differs: ${a[0]}=${show(a[1])} ${b[0]}=${show(b[1])}`);
    this.height = height;
    this.field = field;
  }
}

interface Side {
  engine: BlockEngine;
  sc: CommitStore;
  /** milliseconds spent in executeBlock */
  execMs: number;
}

export interface BlockSummary {
  height: number;
  txs: number;
  included: number;
  rejected: number;
  failedBeforeExecution: number;
  /** kinds of the txs, per outcome: kinds seen included and succeeded, failed, rejected */
  outcomes: { kind: string; outcome: 'ok' | 'failed' | 'rejected' | 'unpaid' }[];
}

export class DiffHarness {
  readonly common: Common;
  readonly feeParams: BaseFeeParams;
  private readonly sides: [Side, Side];
  private readonly known: KnownDifference[];
  private height = 0;

  private constructor(
    common: Common,
    feeParams: BaseFeeParams,
    sides: [Side, Side],
    known: KnownDifference[],
  ) {
    this.known = known;
    this.common = common;
    this.feeParams = feeParams;
    this.sides = sides;
  }

  /** Two commit stores under `dir`, each with the dev genesis committed at version 1, as a chain does. */
  static async open(
    dir: string,
    engines: [BlockEngine, BlockEngine],
    known: KnownDifference[] = KNOWN_DIFFERENCES,
  ): Promise<DiffHarness> {
    const genesis = devGenesis();
    const sides = [] as unknown as [Side, Side];
    for (const engine of engines) {
      const sc = await CommitStore.open({ dir: `${dir}/${engine.name}`, stores: ALL_STORES });
      const overlay = new StateOverlay({ get: () => undefined });
      initChainState(genesis, overlay);
      sc.applyChangeSets(1, toChangeSets(overlay.changes()));
      await sc.commit();
      sides.push({ engine, sc, execMs: 0 });
    }
    const h = new DiffHarness(
      createChainCommon({ chainId: CHAIN_ID }),
      baseFeeParamsFrom(genesis.app_state.evm.params.base_fee),
      sides,
      known,
    );
    h.compareAppHash(0);
    return h;
  }

  /** What the generator reads of the chain (the first engine's state: both are the same). */
  view(): ChainView {
    const sc = this.sides[0].sc;
    const evm = new Evm(new StateOverlay(sc));
    return {
      baseFee: readBaseFee(sc, this.feeParams),
      gasLimit: BLOCK_GAS_LIMIT,
      nonce: (address) => evm.nonce(fromHex(address)),
    };
  }

  /** Milliseconds each engine spent executing blocks. */
  execMs(): Record<string, number> {
    return Object.fromEntries(this.sides.map((s) => [s.engine.name, s.execMs]));
  }

  async close(): Promise<void> {
    for (const s of this.sides) await s.sc.close();
  }

  /** Runs the next block on both engines; throws a BlockDifference at the first difference. */
  async runBlock(txs: GeneratedTx[]): Promise<BlockSummary> {
    const height = ++this.height;
    const [a, b] = this.sides;
    const ea = await this.execute(a, height, txs);
    const eb = await this.execute(b, height, txs);
    const names: [string, string] = [a.engine.name, b.engine.name];
    compareBlocks((f, w, va, vb) => this.tolerate(height, f, w, va, vb), height, txs, names, ea, eb);
    await this.compareChanges(height, txs, names, ea, eb);
    for (const [side, executed] of [
      [a, ea],
      [b, eb],
    ] as const) {
      side.sc.applyChangeSets(height + 1, toChangeSets(executed.overlay.changes()));
      await side.sc.commit();
    }
    this.compareAppHash(height);
    const rejectedHashes = new Set(ea.rejected.map((r) => hx(r.hash)));
    const receiptByHash = new Map(ea.receipts.map((r) => [hx(r.txHash), r]));
    return {
      height,
      txs: txs.length,
      included: ea.receipts.length,
      rejected: ea.rejected.length,
      failedBeforeExecution: ea.receipts.filter((r) => r.failedBeforeExecution).length,
      outcomes: txs.map((t) => {
        const hash = hx(keccakBytes(t.raw));
        const r = receiptByHash.get(hash);
        const outcome = rejectedHashes.has(hash)
          ? 'rejected'
          : r?.failedBeforeExecution
            ? 'unpaid'
            : r?.status === 1
              ? 'ok'
              : 'failed';
        return { kind: t.kind, outcome };
      }),
    };
  }

  /** Known differences met so far, by id: how often, and the first. */
  readonly tolerated = new Map<string, { count: number; first: string }>();

  private tolerate(
    height: number,
    field: KnownDifference['field'],
    where: string,
    a: string,
    b: string,
  ): boolean {
    const k = this.known.find((d) => d.field === field && d.matches(where, a, b));
    if (!k) return false;
    // by id, wording (its numbers and addresses left out) and precompile: one entry covers several
    const precompile = /precompile 0x[0-9a-f]{2}/.exec(where)?.[0];
    const id = `${k.id}: ${wording(a)} vs ${wording(b)}${precompile ? ` (${precompile})` : ''}`;
    const seen = this.tolerated.get(id);
    if (seen) seen.count++;
    else this.tolerated.set(id, { count: 1, first: `block ${height}, ${where}` });
    return true;
  }

  private context(side: Side, height: number): BlockContext {
    return {
      chainId: 'dev-1',
      height,
      timestamp: 1_800_000_000n + BigInt(height) * 2n,
      time: { seconds: 1_800_000_000 + height * 2, nanos: 0 },
      consensus: NO_CONSENSUS_INFO,
      gasLimit: BLOCK_GAS_LIMIT,
      coinbase: FEE_COLLECTOR_ADDRESS,
      parentAppHash: side.sc.appHash(),
      // BLOCKHASH of the 256 blocks below: any fixed function of the height serves, the same for both
      blockHash: (n) =>
        n >= 1n && n < BigInt(height) && n >= BigInt(height) - 256n ? keccakBytes(word(n)) : undefined,
    };
  }

  private async execute(
    side: Side,
    height: number,
    txs: GeneratedTx[],
    lastTxIndex?: number,
  ): Promise<ExecutedBlock> {
    const candidates = txs.map((t) => ({
      kind: 'eth' as const,
      tx: decodeEthTransaction(t.raw, this.common),
    }));
    const started = performance.now();
    const executed = await executeBlock(
      this.common,
      side.sc,
      this.context(side, height),
      this.feeParams,
      candidates,
      'propose',
      lastTxIndex === undefined ? undefined : { lastTxIndex },
      // no time budget: both engines must take every candidate
      { engine: side.engine, budgetMs: Number.POSITIVE_INFINITY },
      true,
    );
    if (lastTxIndex === undefined) side.execMs += performance.now() - started;
    return executed;
  }

  /**
   * The block's state changes; when they differ, the block is run again tx by tx (a prefix at a
   * time) to name the first tx after which they differ.
   */
  private async compareChanges(
    height: number,
    txs: GeneratedTx[],
    names: [string, string],
    ea: ExecutedBlock,
    eb: ExecutedBlock,
  ): Promise<void> {
    const diff = changesDiff(ea.overlay.changes(), eb.overlay.changes());
    if (!diff) return;
    let where = 'the block as a whole';
    for (let i = 0; i < txs.length; i++) {
      const pa = await this.execute(this.sides[0], height, txs, i);
      const pb = await this.execute(this.sides[1], height, txs, i);
      if (changesDiff(pa.overlay.changes(), pb.overlay.changes())) {
        where = `tx ${i} (${txs[i].kind}${txs[i].detail ? `: ${txs[i].detail}` : ''}, ${hx(keccakBytes(txs[i].raw))})`;
        break;
      }
    }
    throw new BlockDifference(
      height,
      where,
      `state change ${diff.key}`,
      [names[0], diff.a],
      [names[1], diff.b],
    );
  }

  private compareAppHash(height: number): void {
    const [a, b] = this.sides;
    const ha = hx(a.sc.appHash());
    const hb = hx(b.sc.appHash());
    if (ha !== hb)
      throw new BlockDifference(height, 'after commit', 'app hash', [a.engine.name, ha], [b.engine.name, hb]);
  }
}

function compareBlocks(
  tolerate: (field: KnownDifference['field'], where: string, a: string, b: string) => boolean,
  height: number,
  txs: GeneratedTx[],
  names: [string, string],
  ea: ExecutedBlock,
  eb: ExecutedBlock,
): void {
  const fail = (where: string, field: string, va: unknown, vb: unknown): never => {
    throw new BlockDifference(height, where, field, [names[0], va], [names[1], vb]);
  };
  const txName = (hash: Uint8Array, index?: number) => {
    const h = hx(hash);
    const at = index ?? txs.findIndex((t) => hx(keccakBytes(t.raw)) === h);
    const t = txs[at];
    return `tx ${at} (${t?.kind ?? '?'}${t?.detail ? `: ${t.detail}` : ''}, ${h})`;
  };
  // rejected txs, in order, with the reason
  const n = Math.max(ea.rejected.length, eb.rejected.length);
  for (let i = 0; i < n; i++) {
    const ra = ea.rejected[i];
    const rb = eb.rejected[i];
    if (!ra || !rb || hx(ra.hash) !== hx(rb.hash))
      fail(
        txName((ra ?? rb).hash),
        'rejected',
        ra ? `rejected: ${ra.reason}` : 'included',
        rb ? `rejected: ${rb.reason}` : 'included',
      );
    // the wording is each engine's own (a rejected tx is in no block); the cause must be the same
    if (
      rejectionCause(ra.reason) !== rejectionCause(rb.reason) &&
      !tolerate('rejection cause', txName(ra.hash), ra.reason, rb.reason)
    )
      fail(txName(ra.hash), 'rejection cause', ra.reason, rb.reason);
  }
  if (ea.receipts.length !== eb.receipts.length)
    fail('receipts', 'count', ea.receipts.length, eb.receipts.length);
  for (let i = 0; i < ea.receipts.length; i++) {
    const where = txName(ea.receipts[i].txHash);
    compareReceipt(where, ea.receipts[i], eb.receipts[i], fail, (w, va, vb) =>
      tolerate('vmError', w, va, vb),
    );
    const aa = ea.appearances?.[i];
    const ab = eb.appearances?.[i];
    if (!aa || !ab) fail(where, 'appearances', aa, ab);
    // the address index keeps a set per tx: the order the engines met the addresses in is not part of it
    for (const f of ['created', 'internal'] as const) {
      const sa = aa![f].map(toHex).sort().join(',');
      const sb = ab![f].map(toHex).sort().join(',');
      if (sa !== sb) fail(where, `appearances.${f}`, sa, sb);
    }
    if (aa!.nonce !== ab!.nonce) fail(where, 'appearances.nonce', aa!.nonce, ab!.nonce);
  }
  if (ea.gasUsed !== eb.gasUsed) fail('block', 'gasUsed', ea.gasUsed, eb.gasUsed);
  if (ea.baseFee !== eb.baseFee) fail('block', 'baseFee', ea.baseFee, eb.baseFee);
  if (ea.txs.length !== eb.txs.length) fail('block', 'tx count', ea.txs.length, eb.txs.length);
}

/** A message without its numbers, addresses and ethereumjs's context: what it says, not about what. */
function wording(message: string): string {
  return message
    .split(' (vm hf=')[0]
    .replace(/0x[0-9a-fA-F]+/g, '\u0000')
    .replace(/\d+/g, 'N')
    .replace(/\u0000/g, '0x…');
}

/** What a rejection is for, whichever engine's words give it. */
export function rejectionCause(reason: string): string {
  // ethereumjs appends the VM, block and tx it ran in: "(vm hf=… nonce=16 …)"
  const text = reason.split(' (vm hf=')[0];
  if (/block gas limit/i.test(text)) return 'block gas limit';
  if (/intrinsic gas|minimum gas limit|call gas cost \(\d+\) exceeds the gas limit/i.test(text))
    return 'gas limit below intrinsic gas';
  if (/base ?fee/i.test(text)) return 'fee cap below base fee';
  if (/nonce/i.test(text)) return 'nonce';
  return text;
}

function compareReceipt(
  where: string,
  a: Receipt,
  b: Receipt,
  fail: (where: string, field: string, va: unknown, vb: unknown) => never,
  tolerated?: (where: string, a: string, b: string) => boolean,
): void {
  const scalar = [
    'txIndex',
    'blockTxIndex',
    'status',
    'gasUsed',
    'cumulativeGasUsed',
    'effectiveGasPrice',
    'type',
    'vmError',
    'failedBeforeExecution',
  ] as const;
  for (const f of scalar) {
    if (a[f] === b[f]) continue;
    if (f === 'vmError' && tolerated?.(where, String(a[f]), String(b[f]))) continue;
    fail(where, f, a[f], b[f]);
  }
  for (const f of ['txHash', 'from', 'to', 'contractAddress', 'revertData', 'logsBloom'] as const) {
    const va = a[f] ? hx(a[f]) : a[f];
    const vb = b[f] ? hx(b[f]) : b[f];
    if (va !== vb) fail(where, f, va, vb);
  }
  if (a.logs.length !== b.logs.length) fail(where, 'logs.length', a.logs.length, b.logs.length);
  for (let i = 0; i < a.logs.length; i++) {
    const la = a.logs[i];
    const lb = b.logs[i];
    const fa = {
      address: hx(la.address),
      topics: la.topics.map(toHex),
      data: hx(la.data),
      logIndex: la.logIndex,
    };
    const fb = {
      address: hx(lb.address),
      topics: lb.topics.map(toHex),
      data: hx(lb.data),
      logIndex: lb.logIndex,
    };
    for (const f of ['address', 'data', 'logIndex'] as const)
      if (fa[f] !== fb[f]) fail(where, `logs[${i}].${f}`, fa[f], fb[f]);
    if (fa.topics.join() !== fb.topics.join()) fail(where, `logs[${i}].topics`, fa.topics, fb.topics);
  }
}

/** The first key whose change differs (or is in one block's changes only), with both values. */
function changesDiff(
  a: StoreChanges[],
  b: StoreChanges[],
): { key: string; a: string; b: string } | undefined {
  const flat = (cs: StoreChanges[]) => {
    const m = new Map<string, string>();
    for (const c of cs)
      for (const w of c.writes) m.set(`${c.store}/${hx(w.key)}`, w.value ? hx(w.value) : 'deleted');
    return m;
  };
  const ma = flat(a);
  const mb = flat(b);
  const keys = [...new Set([...ma.keys(), ...mb.keys()])].sort();
  for (const k of keys) {
    const va = ma.get(k) ?? 'unchanged';
    const vb = mb.get(k) ?? 'unchanged';
    if (va !== vb) return { key: describeKey(k), a: va, b: vb };
  }
  return undefined;
}

/** A state key with what it holds, when the layout says (`evm/0x03…` is a storage slot). */
function describeKey(k: string): string {
  const [store, hex] = k.split('/');
  if (store !== STORES.evm) return k;
  const prefix = hex.slice(2, 4); // after the 0x
  const what = {
    '03': 'storage',
    '07': 'code',
    '08': 'codehash',
    '0a': 'nonce',
    '01': 'association',
    '02': 'association',
  }[prefix];
  return what ? `${k} (${what})` : k;
}

/** As the chain turns a block's changes into State Commit's change sets. */
function toChangeSets(changes: StoreChanges[]) {
  return changes.map((c) => ({
    store: c.store,
    pairs: c.writes.map((w) => ({ key: w.key, value: w.value })),
  }));
}

function keccakBytes(b: Uint8Array): Uint8Array {
  return fromHex(keccak256(b));
}

function word(n: bigint): Uint8Array {
  return fromHex(n.toString(16).padStart(64, '0'));
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v === undefined) return 'absent';
  return typeof v === 'string' ? v : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
}

function hx(b: Uint8Array): string {
  return '0x' + toHex(b);
}
