/**
 * eth_getLogs filters compiled once per query into a matcher that reads a log's address and topics
 * straight from the receipt record, so non-matching logs are never materialised.
 *
 * Topic semantics follow geth's filterLogs: a log with fewer topics than the filter has positions
 * never matches (even if the extra positions are null); a null or empty position is a wildcard;
 * otherwise the log's topic at that position must be one of the listed ones.
 */
import { equalBytes } from '../../primitives/bytes.ts';
import { latin1 } from './bloom.ts';
import { InvalidLogQueryError } from './errors.ts';
import type { RawLogMatcher } from './receipt-codec.ts';

export const MAX_TOPICS = 4;

type ByteSetTest = (buf: Uint8Array, off: number) => boolean;

/** Few items: compare in place (no allocation); many: one string key per probe into a Set. */
function byteSet(items: Uint8Array[], len: number): ByteSetTest {
  if (items.length <= 8) {
    return (buf, off) => {
      outer: for (const it of items) {
        for (let i = 0; i < len; i++) if (buf[off + i] !== it[i]) continue outer;
        return true;
      }
      return false;
    };
  }
  const set = new Set(items.map((it) => latin1(it)));
  return (buf, off) => set.has(latin1(buf, off, len));
}

export interface CompiledLogFilter {
  match: RawLogMatcher;
}

export function compileLogFilter(
  addresses: Uint8Array[] = [],
  topics: (Uint8Array[] | null)[] = [],
): CompiledLogFilter {
  if (topics.length > MAX_TOPICS)
    throw new InvalidLogQueryError(`log filter has ${topics.length} topic positions (at most ${MAX_TOPICS})`);
  addresses.forEach((a, i) => {
    if (!(a instanceof Uint8Array) || a.length !== 20)
      throw new InvalidLogQueryError(`log filter address ${i} must be 20 bytes`);
  });
  topics.forEach((pos, i) =>
    pos?.forEach((t, j) => {
      if (!(t instanceof Uint8Array) || t.length !== 32)
        throw new InvalidLogQueryError(`log filter topic [${i}][${j}] must be 32 bytes`);
    }),
  );

  const addressTest = addresses.length > 0 ? byteSet(addresses, 20) : null;
  const topicTests = topics.map((pos) => (pos && pos.length > 0 ? byteSet(pos, 32) : null));
  const minTopics = topics.length;

  return {
    match(buf, addressOff, nTopics, topicsOff) {
      if (nTopics < minTopics) return false;
      if (addressTest && !addressTest(buf, addressOff)) return false;
      for (let i = 0; i < topicTests.length; i++) {
        const t = topicTests[i];
        if (t && !t(buf, topicsOff + 32 * i)) return false;
      }
      return true;
    },
  };
}

/** The same semantics over decoded logs; tests use it as the reference. */
export function logMatches(
  log: { address: Uint8Array; topics: Uint8Array[] },
  addresses: Uint8Array[] = [],
  topics: (Uint8Array[] | null)[] = [],
): boolean {
  if (topics.length > log.topics.length) return false;
  if (addresses.length > 0 && !addresses.some((a) => equalBytes(a, log.address))) return false;
  return topics.every((pos, i) => !pos || pos.length === 0 || pos.some((t) => equalBytes(t, log.topics[i])));
}
