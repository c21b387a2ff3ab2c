/**
 * Tx search over CometBFT's query language, shared by the consensus RPC's `/tx_search`, REST's
 * `GET /cosmos/tx/v1beta1/txs` and gRPC's `GetTxsEvent` (peers that may not import each other).
 *
 * A query is conditions joined by `AND`: `<key> <op> <operand>` with op one of `=`, `<`, `<=`, `>`,
 * `>=`, `CONTAINS`, or `<key> EXISTS`; an operand is a 'quoted string' or a number. Keys are
 * `tx.height`, `tx.hash`, `tm.event` (always `'Tx'` here) and event attributes `type.key`
 * (`transfer.recipient`, `message.sender`, …), as CometBFT's kv indexer reads them: a tx matches when
 * every condition holds for some indexed attribute of its events (conditions may match different events).
 *
 * The event index (the block store's, see docs/adr/0021-tx-event-index.md) proposes candidates for
 * one condition; every candidate is then checked against the whole query with its real events, so the
 * answer never depends on how the index keys its entries. Heights stored before the index existed are
 * searched block by block, at most TX_SEARCH_MAX_BLOCKS of them.
 */
import { txHash } from '../../codec/index.ts';
import { ChainError } from '../../util/errors.ts';

/** A query's scan over blocks without the event index is refused past this many blocks. */
export const TX_SEARCH_MAX_BLOCKS = 10_000;
/** Index entries one search may read; a broader query must be narrowed (by tx.height, say). */
export const TX_SEARCH_MAX_INDEX_ENTRIES = 100_000;

export type TxQueryOp = '=' | '<' | '<=' | '>' | '>=' | 'CONTAINS' | 'EXISTS';

export interface TxCondition {
  key: string;
  op: TxQueryOp;
  /** Absent for EXISTS. */
  operand?: { kind: 'string'; value: string } | { kind: 'number'; value: string };
}

/** A query the node cannot run: each server answers it as its invalid-argument error. */
export class TxQueryError extends ChainError {
  constructor(message: string) {
    super('TX_QUERY', message);
  }
}

export interface TxEventView {
  type: string;
  attributes: { key: string; value: string; index: boolean }[];
}

/** The block store's event index, as the search reads it. */
export interface TxEventIndex {
  /** The first height whose txs are in the index (undefined: none yet). */
  indexedSince(): number | undefined;
  /** Whether the index holds `compositeKey`'s entries (an EVM tx's events are not in it). */
  covers(compositeKey: string): boolean;
  /**
   * The txs another index finds for `compositeKey` = value (an EVM tx by `ethereum_tx.ethereumTxHash`),
   * or undefined when none answers for that key.
   */
  exact(compositeKey: string, value: string): { height: number; index: number }[] | undefined;
  /** Txs of [from, to] holding `compositeKey` = value (any value when undefined), height order. */
  txs(
    compositeKey: string,
    value: string | undefined,
    from: number,
    to: number,
    maxEntries: number,
  ): { locations: { height: number; index: number }[]; truncated: boolean };
}

/** What a search reads: committed blocks (at or below the watermark) and their tx results. */
export interface TxSearchSource {
  latestHeight(): number;
  earliestHeight(): number;
  block(height: number): { txs: Uint8Array[] } | undefined;
  txResults(height: number): { events: TxEventView[] }[] | undefined;
  txLocation(hash: Uint8Array): { height: number; index: number } | undefined;
  eventIndex?: TxEventIndex;
}

export interface TxSearchLocation {
  height: number;
  index: number;
}

const SPECIAL = new Set(['tx.height', 'tx.hash', 'tm.event']);
const NUMBER = /^-?\d+(\.\d+)?$/;

/** Parses a query; throws TxQueryError naming what is wrong. */
export function parseTxQuery(query: string): TxCondition[] {
  const src = query.trim();
  if (src === '') throw new TxQueryError('query is empty');
  const out: TxCondition[] = [];
  let pos = 0;
  const rest = () => src.slice(pos);
  const skipSpace = () => {
    while (pos < src.length && /\s/.test(src[pos])) pos++;
  };
  for (;;) {
    skipSpace();
    const key = /^[^\s<>=']+/.exec(rest())?.[0];
    if (!key) throw new TxQueryError(`query: expected a key at ${JSON.stringify(rest())}`);
    pos += key.length;
    skipSpace();
    const op = /^(<=|>=|=|<|>|CONTAINS\b|EXISTS\b)/.exec(rest())?.[1] as TxQueryOp | undefined;
    if (!op)
      throw new TxQueryError(
        `query: expected an operator (=, <, <=, >, >=, CONTAINS, EXISTS) after ${key}, got ${JSON.stringify(rest())}`,
      );
    pos += op.length;
    const cond: TxCondition = { key, op };
    if (op !== 'EXISTS') {
      skipSpace();
      const quoted = /^'([^']*)'/.exec(rest());
      const number = /^-?\d+(\.\d+)?(?=\s|$)/.exec(rest());
      if (quoted) {
        cond.operand = { kind: 'string', value: quoted[1] };
        pos += quoted[0].length;
      } else if (number) {
        cond.operand = { kind: 'number', value: number[0] };
        pos += number[0].length;
      } else if (/^(TIME|DATE)\b/.test(rest())) {
        throw new TxQueryError(`query: TIME and DATE operands are not supported (condition on ${key})`);
      } else {
        throw new TxQueryError(
          `query: ${key} ${op} needs a 'quoted string' or a number, got ${JSON.stringify(rest())}`,
        );
      }
      if (op !== '=' && op !== 'CONTAINS' && cond.operand.kind !== 'number')
        throw new TxQueryError(`query: ${key} ${op} needs a number, got '${cond.operand.value}'`);
      if (op === 'CONTAINS' && cond.operand.kind !== 'string')
        throw new TxQueryError(`query: ${key} CONTAINS needs a 'quoted string'`);
    }
    checkSpecial(cond);
    out.push(cond);
    skipSpace();
    if (pos >= src.length) return out;
    if (!/^AND\s/.test(rest()))
      throw new TxQueryError(`query: expected AND or the end of the query at ${JSON.stringify(rest())}`);
    pos += 3;
  }
}

function checkSpecial(c: TxCondition): void {
  if (c.key === 'tx.height') {
    if (
      c.op === 'CONTAINS' ||
      c.op === 'EXISTS' ||
      c.operand?.kind !== 'number' ||
      c.operand.value.includes('.')
    )
      throw new TxQueryError(`query: tx.height needs an integer with =, <, <=, > or >=`);
  } else if (c.key === 'tx.hash') {
    if (c.op !== '=' || c.operand?.kind !== 'string' || !/^[0-9a-fA-F]{64}$/.test(c.operand.value))
      throw new TxQueryError(`query: tx.hash supports only = '<32 bytes of hex>'`);
  } else if (c.key === 'tm.event') {
    if (c.op !== '=' || c.operand?.kind !== 'string')
      throw new TxQueryError(`query: tm.event supports only = '<event>'`);
  }
}

/** Compares two decimal numbers exactly (integers as bigints), or undefined if one is not a number. */
function compareNumbers(a: string, b: string): number | undefined {
  if (!NUMBER.test(a) || !NUMBER.test(b)) return undefined;
  if (!a.includes('.') && !b.includes('.')) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return Math.sign(Number(a) - Number(b));
}

function holds(c: TxCondition, value: string): boolean {
  if (c.op === 'EXISTS') return true;
  const operand = c.operand!;
  if (c.op === 'CONTAINS') return value.includes(operand.value);
  if (c.op === '=' && operand.kind === 'string') return value === operand.value;
  const cmp = compareNumbers(value, operand.value);
  if (cmp === undefined) return false;
  switch (c.op) {
    case '=':
      return cmp === 0;
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case '>':
      return cmp > 0;
    default:
      return cmp >= 0;
  }
}

/** Whether one tx satisfies every condition (the special keys against its location and hash). */
export function txMatches(
  conditions: readonly TxCondition[],
  tx: { height: number; hash: () => Uint8Array; events: readonly TxEventView[] },
): boolean {
  return conditions.every((c) => {
    if (c.key === 'tx.height') return holds(c, String(tx.height));
    if (c.key === 'tx.hash') return Buffer.from(tx.hash()).toString('hex') === c.operand!.value.toLowerCase();
    if (c.key === 'tm.event') return c.operand!.value === 'Tx';
    return tx.events.some(
      (e) =>
        c.key.startsWith(`${e.type}.`) &&
        e.attributes.some((a) => a.index && `${e.type}.${a.key}` === c.key && holds(c, a.value)),
    );
  });
}

/** The inclusive height bounds the tx.height conditions allow. */
function heightBounds(conditions: readonly TxCondition[]): { lo: number; hi: number } {
  let lo = 1;
  let hi = Number.MAX_SAFE_INTEGER;
  for (const c of conditions) {
    if (c.key !== 'tx.height') continue;
    const n = Number(c.operand!.value);
    if (c.op === '=' || c.op === '>=') lo = Math.max(lo, n);
    if (c.op === '=' || c.op === '<=') hi = Math.min(hi, n);
    if (c.op === '>') lo = Math.max(lo, n + 1);
    if (c.op === '<') hi = Math.min(hi, n - 1);
  }
  return { lo, hi };
}

/**
 * Every committed tx matching `query`, ascending by (height, index) or descending. Throws
 * TxQueryError for a malformed query or one too broad to answer (naming the bound).
 */
export function searchTxs(source: TxSearchSource, query: string, order: 'asc' | 'desc'): TxSearchLocation[] {
  const conditions = parseTxQuery(query);
  const latest = source.latestHeight();
  if (latest === 0) return [];
  const bounds = heightBounds(conditions);
  const lo = Math.max(bounds.lo, source.earliestHeight());
  const hi = Math.min(bounds.hi, latest);
  let candidates: TxSearchLocation[] = [];
  const hashCond = conditions.find((c) => c.key === 'tx.hash');
  const eventConds = conditions.filter((c) => !SPECIAL.has(c.key));
  const scanBlocks = (from: number, to: number, why: string) => {
    if (to < from) return;
    if (to - from + 1 > TX_SEARCH_MAX_BLOCKS)
      throw new TxQueryError(
        `query spans ${to - from + 1} blocks ${why}; at most ${TX_SEARCH_MAX_BLOCKS} can be searched: bound it with tx.height`,
      );
    for (let h = from; h <= to; h++) {
      const n = source.block(h)?.txs.length ?? 0;
      for (let i = 0; i < n; i++) candidates.push({ height: h, index: i });
    }
  };
  if (hi < lo) return [];
  if (hashCond) {
    const loc = source.txLocation(new Uint8Array(Buffer.from(hashCond.operand!.value, 'hex')));
    if (loc && loc.height >= lo && loc.height <= hi) candidates.push(loc);
  } else if (eventConds.length > 0) {
    const index = source.eventIndex;
    const exactConds = eventConds.filter((c) => c.op === '=' && c.operand?.kind === 'string');
    const exact = index && exactConds.map((c) => index.exact(c.key, c.operand!.value)).find((r) => r);
    const covered = index ? eventConds.filter((c) => index.covers(c.key)) : [];
    if (exact) {
      candidates.push(...exact.filter((l) => l.height >= lo && l.height <= hi));
    } else if (!index || covered.length === 0) {
      scanBlocks(lo, hi, 'on attributes the event index does not hold');
    } else {
      // an exact string match reads one key range; otherwise one key's values are all read
      const driver = covered.find((c) => c.op === '=' && c.operand?.kind === 'string') ?? covered[0];
      const value = driver.op === '=' && driver.operand?.kind === 'string' ? driver.operand.value : undefined;
      const since = index.indexedSince() ?? Number.POSITIVE_INFINITY;
      scanBlocks(lo, Math.min(hi, since - 1), 'stored before the event index existed');
      if (hi >= Math.max(lo, since)) {
        const r = index.txs(driver.key, value, Math.max(lo, since), hi, TX_SEARCH_MAX_INDEX_ENTRIES);
        if (r.truncated)
          throw new TxQueryError(
            `query: the condition on ${driver.key} matches more than ${TX_SEARCH_MAX_INDEX_ENTRIES} index entries: narrow it (an exact value, or tx.height bounds)`,
          );
        candidates.push(...r.locations);
      }
    }
  } else if (conditions.some((c) => c.key === 'tx.height')) {
    scanBlocks(lo, hi, 'by tx.height');
  } else {
    throw new TxQueryError('query needs a tx.height, tx.hash or event attribute condition');
  }
  const results = new Map<number, { events: TxEventView[] }[] | undefined>();
  const blocks = new Map<number, { txs: Uint8Array[] } | undefined>();
  candidates = candidates.filter((loc) => {
    if (!results.has(loc.height)) {
      results.set(loc.height, source.txResults(loc.height));
      blocks.set(loc.height, source.block(loc.height));
    }
    const result = results.get(loc.height)?.[loc.index];
    const raw = blocks.get(loc.height)?.txs[loc.index];
    if (!result || !raw) return false;
    return txMatches(conditions, { height: loc.height, hash: () => txHash(raw), events: result.events });
  });
  return order === 'desc' ? candidates.reverse() : candidates;
}

/**
 * Whether an event's composite-key map (CometBFT's `events` of a published event: `tm.event`,
 * `tx.hash`, `tx.height`, every `type.key` of the tx's events) satisfies every condition: how a
 * `/websocket` subscription's query selects the events it receives.
 */
export function eventMapMatches(
  conditions: readonly TxCondition[],
  events: Record<string, string[]>,
): boolean {
  return conditions.every((c) => {
    const values = events[c.key];
    if (!values) return false;
    if (c.key === 'tx.hash') return values.some((v) => v.toUpperCase() === c.operand!.value.toUpperCase());
    return values.some((v) => holds(c, v));
  });
}
