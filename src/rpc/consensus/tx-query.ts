/**
 * The subset of CometBFT's query language `/tx_search` supports: conditions on `tx.height`
 * (=, <, <=, >, >=) and `tx.hash` (=, hex), joined by AND, e.g.
 *   tx.height >= 5 AND tx.height <= 9        tx.hash = 'AB12…'
 * Event-attribute conditions (`transfer.sender = '…'`) need an event index the node does not keep;
 * they are refused with a clear error rather than answered wrongly.
 */
import { fromHex } from '../../primitives/bytes.ts';
import { InvalidParamsError } from './errors.ts';

export interface TxQuery {
  /** Inclusive bounds; undefined = unbounded. */
  minHeight?: number;
  maxHeight?: number;
  hash?: Uint8Array;
}

const CONDITION = /^\s*(tx\.height|tx\.hash|[A-Za-z_][\w.]*)\s*(<=|>=|=|<|>|CONTAINS|EXISTS)\s*(.*?)\s*$/;

export function parseTxQuery(query: string): TxQuery {
  const out: TxQuery = {};
  if (query.trim() === '') throw new InvalidParamsError('query is empty');
  for (const part of query.split(/\s+AND\s+/)) {
    const m = CONDITION.exec(part);
    if (!m) throw new InvalidParamsError(`query: cannot parse condition ${JSON.stringify(part.trim())}`);
    const [, key, op, rawValue] = m;
    const value = rawValue.replace(/^'(.*)'$/, '$1');
    if (key === 'tx.height') {
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
        throw new InvalidParamsError(`query: tx.height needs an integer, got ${rawValue}`);
      const n = Number(value);
      const lower = (b: number) => (out.minHeight = Math.max(out.minHeight ?? 0, b));
      const upper = (b: number) => (out.maxHeight = Math.min(out.maxHeight ?? Number.MAX_SAFE_INTEGER, b));
      if (op === '=') (lower(n), upper(n));
      else if (op === '>=') lower(n);
      else if (op === '>') lower(n + 1);
      else if (op === '<=') upper(n);
      else if (op === '<') upper(n - 1);
      else throw new InvalidParamsError(`query: operator ${op} is not supported on tx.height`);
    } else if (key === 'tx.hash') {
      if (op !== '=') throw new InvalidParamsError(`query: tx.hash supports only =, got ${op}`);
      let hash: Uint8Array;
      try {
        hash = fromHex(value);
      } catch {
        throw new InvalidParamsError(`query: tx.hash needs a hex hash, got ${rawValue}`);
      }
      if (hash.length !== 32)
        throw new InvalidParamsError(`query: tx.hash must be 32 bytes, got ${hash.length}`);
      out.hash = hash;
    } else {
      throw new InvalidParamsError(
        `query: condition on ${JSON.stringify(key)} is not supported (supported: tx.height, tx.hash)`,
      );
    }
  }
  return out;
}
