/**
 * trace_filter's parsing, reth's matching rules (alloy's TraceFilterMatcher: empty lists match all;
 * union and intersection), the block-walking candidate source and the address-index one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodecError } from '../../../../src/rpc/codecs/errors.ts';
import type { AddressHistory } from '../../../../src/rpc/evm/backend.ts';
import {
  AddressIndexSource,
  BlockWalkSource,
  parseTraceFilter,
  traceMatcher,
} from '../../../../src/rpc/evm/trace-filter.ts';
import type { ParityTrace } from '../../../../src/rpc/evm/trace-backend.ts';

const A = '0x' + '0a'.repeat(20);
const B = '0x' + '0b'.repeat(20);
const C = '0x' + '0c'.repeat(20);
const call = (from: string, to: string): ParityTrace => ({
  action: { from, to, callType: 'call', gas: '0x0', input: '0x', value: '0x0' },
  result: { gasUsed: '0x0', output: '0x' },
  subtraces: 0,
  traceAddress: [],
  type: 'call',
});
const create = (from: string, address?: string): ParityTrace => ({
  action: { from, gas: '0x0', init: '0x', value: '0x0', creationMethod: 'create' },
  result: address ? { address, code: '0x', gasUsed: '0x0' } : null,
  subtraces: 0,
  traceAddress: [],
  type: 'create',
});
const suicide = (address: string, refundAddress: string): ParityTrace => ({
  action: { address, refundAddress, balance: '0x0' },
  result: null,
  subtraces: 0,
  traceAddress: [],
  type: 'suicide',
});
const matcher = (f: object) => traceMatcher(parseTraceFilter(f));

test('empty or absent address lists match every trace', () => {
  for (const f of [{}, { fromAddress: [], toAddress: [] }, { fromAddress: null, toAddress: null }]) {
    const m = matcher(f);
    assert.ok(m(call(A, B)) && m(create(A)) && m(suicide(A, B)), JSON.stringify(f));
    assert.ok(matcher({ ...f, mode: 'intersection' })(call(A, B)));
  }
});

test('one list given: that side must match (union and intersection alike)', () => {
  for (const mode of ['union', 'intersection']) {
    assert.equal(matcher({ fromAddress: [A], mode })(call(A, B)), true);
    assert.equal(matcher({ fromAddress: [B], mode })(call(A, B)), false);
    assert.equal(matcher({ toAddress: [B], mode })(call(A, B)), true);
    assert.equal(matcher({ toAddress: [A], mode })(call(A, B)), false);
  }
});

test('both lists: union matches either side, intersection both', () => {
  const f = { fromAddress: [A], toAddress: [C] };
  assert.equal(matcher(f)(call(A, B)), true);
  assert.equal(matcher(f)(call(B, C)), true);
  assert.equal(matcher(f)(call(B, B)), false);
  assert.equal(matcher({ ...f, mode: 'intersection' })(call(A, B)), false);
  assert.equal(matcher({ ...f, mode: 'intersection' })(call(A, C)), true);
});

test('a creation matches on its created address, a failed one only an empty to list; a self-destruct on address/refundAddress', () => {
  assert.equal(matcher({ toAddress: [B] })(create(A, B)), true);
  assert.equal(matcher({ toAddress: [B] })(create(A)), false);
  assert.equal(matcher({ fromAddress: [A] })(create(A)), true);
  assert.equal(matcher({ fromAddress: [A] })(suicide(A, B)), true);
  assert.equal(matcher({ toAddress: [B] })(suicide(A, B)), true);
  assert.equal(matcher({ toAddress: [A] })(suicide(A, B)), false);
});

test('addresses match whatever their case', () => {
  assert.equal(matcher({ toAddress: ['0x' + '0B'.repeat(20)] })(call(A, B)), true);
});

test('parsing: defaults, numbers as hex or JSON numbers, refusals naming the field', () => {
  assert.deepStrictEqual(parseTraceFilter({}), {
    fromBlock: undefined,
    toBlock: undefined,
    fromAddress: [],
    toAddress: [],
    after: 0,
    count: undefined,
    mode: 'union',
  });
  const f = parseTraceFilter({ fromBlock: '0x2', toBlock: 'latest', after: '0x3', count: 4 });
  assert.deepStrictEqual(
    [f.fromBlock, f.toBlock, f.after, f.count],
    [{ kind: 'number', height: 2 }, { kind: 'tag', tag: 'latest' }, 3, 4],
  );
  const refused = (v: unknown, message: RegExp) =>
    assert.throws(
      () => parseTraceFilter(v),
      (e: unknown) => e instanceof CodecError && message.test(e.message),
    );
  refused([], /want a trace filter object/);
  refused({ blockHash: '0x00' }, /unknown field "blockHash"/);
  refused({ mode: 'both' }, /^mode: want "union" or "intersection"/);
  refused({ fromAddress: A }, /^fromAddress must be an array/);
  refused({ toAddress: ['0x12'] }, /^toAddress\[0\]: /);
  refused({ count: -1 }, /^count: /);
  refused({ fromBlock: 7 }, /^fromBlock: /);
});

test('BlockWalkSource: every Ethereum tx of the range, in order, block 0 never', async () => {
  const counts: Record<number, number> = { 0: 0, 1: 2, 2: 0, 3: 1 };
  const source = new BlockWalkSource({ receipts: (h) => Array(counts[h] ?? 0).fill({}) });
  assert.deepStrictEqual(await source.candidates(0, 4), [
    { height: 1, evmIndex: 0 },
    { height: 1, evmIndex: 1 },
    { height: 3, evmIndex: 0 },
  ]);
});

/** An in-memory AddressHistory with the index's paging rule: at least `minTxs`, the last block whole. */
function history(
  entries: Record<string, { height: number; evmIndex: number }[]>,
  since: number | undefined,
  chainStart = 1,
): AddressHistory & { pages: number } {
  const h = {
    pages: 0,
    chainStart,
    indexedSince: () => since,
    page(address: Uint8Array, direction: 'before' | 'after', height: number, minTxs: number) {
      assert.equal(direction, 'after');
      h.pages++;
      const all = (entries['0x' + Buffer.from(address).toString('hex')] ?? []).filter(
        (t) => t.height > height,
      );
      const txs: { height: number; evmIndex: number }[] = [];
      for (const t of all) {
        if (txs.length >= minTxs && t.height !== txs.at(-1)!.height) return { txs, reachedEnd: false };
        txs.push(t);
      }
      return { txs, reachedEnd: true };
    },
    creations: () => [],
    bySenderAndNonce: () => undefined,
  };
  return h;
}

const bytesOf = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));

test('AddressIndexSource: the indexed txs of the addresses, deduplicated, in order; unindexed heights walked', async () => {
  const walked: [number, number][] = [];
  const walk = {
    async candidates(from: number, to: number) {
      walked.push([from, to]);
      const out = [];
      for (let h = from; h <= to; h++) out.push({ height: h, evmIndex: 0 });
      return out;
    },
  };
  // A in 2,000 txs (several index pages), B sharing two of them
  const aTxs = Array.from({ length: 2000 }, (_, i) => ({ height: 10 + Math.floor(i / 3), evmIndex: i % 3 }));
  const entries = { [A]: aTxs, [B]: [aTxs[5], { height: 12, evmIndex: 7 }, aTxs[1999]] };
  const complete = history(entries, 1);
  const source = new AddressIndexSource(complete, walk);
  const got = await source.candidates(1, 100_000, [bytesOf(A)], [bytesOf(B), bytesOf(A)]);
  const expected = [...aTxs, { height: 12, evmIndex: 7 }].sort(
    (x, y) => x.height - y.height || x.evmIndex - y.evmIndex,
  );
  assert.deepStrictEqual(got, expected);
  assert.deepStrictEqual(walked, [], 'an index from the chain start walks nothing');
  assert.ok(complete.pages >= 3, 'A is read page by page');
  // the range bounds the answer
  assert.deepStrictEqual(await source.candidates(11, 11, [], [bytesOf(B)]), [aTxs[5]]);
  assert.deepStrictEqual(await source.candidates(13, 675, [], [bytesOf(B)]), []);
  assert.deepStrictEqual(await source.candidates(12, 12, [], [bytesOf(B)]), [{ height: 12, evmIndex: 7 }]);
  // no address: every tx (the walk)
  assert.equal((await source.candidates(5, 7, [], [])).length, 3);
  walked.length = 0;

  // an index that starts at 500 (a state-synced node): below it every tx is a candidate
  const younger = new AddressIndexSource(history(entries, 500), walk);
  const mixed = await younger.candidates(400, 700, [bytesOf(B)], []);
  assert.deepStrictEqual(walked, [[400, 499]]);
  assert.equal(mixed.length, 100 + 1, 'the 100 walked heights, then B at 676');
  assert.deepStrictEqual(mixed.at(-1), aTxs[1999]);
  // nothing indexed yet: the walk alone
  walked.length = 0;
  assert.equal(
    (await new AddressIndexSource(history(entries, undefined), walk).candidates(1, 9, [bytesOf(A)], []))
      .length,
    9,
  );
  assert.deepStrictEqual(walked, [[1, 9]]);
});
