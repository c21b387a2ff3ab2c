import assert from 'node:assert/strict';
import { test } from 'node:test';
import { txHash } from '../../../../src/codec/index.ts';
import {
  parseTxQuery,
  searchTxs,
  type TxEventView,
  TxQueryError,
  type TxSearchSource,
} from '../../../../src/rpc/codecs/tx-search.ts';

const ev = (type: string, attrs: Record<string, string>): TxEventView => ({
  type,
  attributes: Object.entries(attrs).map(([key, value]) => ({ key, value, index: true })),
});

/** Three blocks: height 1 a send a→b, height 2 a send b→c and an unrelated tx, height 3 empty. */
function source(withIndex: boolean): TxSearchSource {
  const blocks: Record<number, { raw: Uint8Array; events: TxEventView[] }[]> = {
    1: [{ raw: Uint8Array.of(1), events: [ev('transfer', { sender: 'a', recipient: 'b', amount: '5' })] }],
    2: [
      { raw: Uint8Array.of(2), events: [ev('transfer', { sender: 'b', recipient: 'c', amount: '50' })] },
      { raw: Uint8Array.of(3), events: [ev('message', { sender: 'b' })] },
    ],
    3: [],
  };
  return {
    latestHeight: () => 3,
    earliestHeight: () => 1,
    block: (h) => blocks[h] && { txs: blocks[h].map((t) => t.raw) },
    txResults: (h) => blocks[h]?.map((t) => ({ events: t.events })),
    txLocation: () => undefined,
    // an index that proposes every tx: the search must still check each one
    eventIndex: withIndex
      ? {
          indexedSince: () => 1,
          covers: (key) => key !== 'message.sender',
          // as the EVM hash index would: the tx it names, whatever the value (the events decide)
          exact: (key) => (key === 'transfer.amount' ? [{ height: 2, index: 0 }] : undefined),
          txs: (_k, _v, from, to) => ({
            locations: Object.entries(blocks).flatMap(([h, txs]) =>
              Number(h) >= from && Number(h) <= to
                ? txs.map((_, index) => ({ height: Number(h), index }))
                : [],
            ),
            truncated: false,
          }),
        }
      : undefined,
  };
}

test('tx search: event conditions joined by AND, numbers compared as numbers, order', () => {
  for (const withIndex of [true, false]) {
    const s = source(withIndex);
    const q = (query: string, order: 'asc' | 'desc' = 'asc') => searchTxs(s, query, order);
    assert.deepEqual(q("transfer.sender = 'b'"), [{ height: 2, index: 0 }]);
    assert.deepEqual(q("message.sender='b'"), [{ height: 2, index: 1 }]);
    assert.deepEqual(q('transfer.amount > 9'), [{ height: 2, index: 0 }]);
    assert.deepEqual(q('transfer.amount >= 5 AND tx.height < 2'), [{ height: 1, index: 0 }]);
    assert.deepEqual(q('transfer.recipient EXISTS', 'desc'), [
      { height: 2, index: 0 },
      { height: 1, index: 0 },
    ]);
    assert.deepEqual(q("transfer.recipient CONTAINS 'c' AND tm.event = 'Tx'"), [{ height: 2, index: 0 }]);
    assert.deepEqual(q("transfer.sender = 'a' AND transfer.recipient = 'c'"), []);
    assert.deepEqual(q(`tx.hash = '${Buffer.from(txHash(Uint8Array.of(3))).toString('hex')}'`), []);
    // a key another index answers exactly, and one the event index does not hold (a block scan)
    assert.deepEqual(q("transfer.amount = '50'"), [{ height: 2, index: 0 }]);
    assert.deepEqual(q("transfer.amount = '5'"), withIndex ? [] : [{ height: 1, index: 0 }]);
    assert.deepEqual(q('tx.height = 2'), [
      { height: 2, index: 0 },
      { height: 2, index: 1 },
    ]);
  }
});

test('tx search: malformed or unbounded queries are refused, naming what is wrong', () => {
  const refused = (query: string, message: RegExp) =>
    assert.throws(
      () => parseTxQuery(query),
      (e: unknown) => e instanceof TxQueryError && message.test(e.message),
    );
  refused('', /query is empty/);
  refused('tx.height = x', /tx.height = needs a 'quoted string' or a number/);
  refused("tx.height = '1'", /tx.height needs an integer/);
  refused('tx.hash > 1', /tx.hash supports only =/);
  refused("tx.hash = 'AB'", /tx.hash supports only =/);
  refused("a.b < 'x'", /a.b < needs a number, got 'x'/);
  refused("a.b = 'x' OR a.c = 'y'", /expected AND or the end of the query/);
  refused('a.b EXISTS AND', /expected AND or the end of the query at "AND"/);
  refused('a.b = TIME 2020-01-01T00:00:00Z', /TIME and DATE operands are not supported/);
  assert.throws(
    () => searchTxs(source(false), "tm.event = 'Tx'", 'asc'),
    /needs a tx.height, tx.hash or event/,
  );
});
