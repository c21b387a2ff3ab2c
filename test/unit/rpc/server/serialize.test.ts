import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedJson, RawJson } from '../../../../src/rpc/server/serialize.ts';

test("BoundedJson writes exactly JSON.stringify's text", async () => {
  const values: unknown[] = [
    null,
    'x"\\\u2028',
    [1, 'a', null, undefined, () => 1, { a: undefined, b: [] }],
    { a: 1, b: undefined, c: { d: [{ e: 'f', g: [1, 2] }, { h: { i: null } }] }, j: new Date(0), k: NaN },
    { structLogs: Array.from({ length: 300 }, (_, i) => ({ pc: i, stack: ['0x1'], storage: { a: 'b' } })) },
    Array.from({ length: 5_000 }, (_, i) => ({ address: '0xab', topics: ['0x' + i], removed: false })),
    [[[]], {}, [{}], Object.create(null)],
  ];
  for (const v of values) assert.equal(await BoundedJson.stringify(v), JSON.stringify(v));
});

test('BoundedJson gives up past its bound; RawJson is written as is', async () => {
  const big = Array.from({ length: 1_000 }, (_, i) => ({ i, s: 'x'.repeat(100) }));
  const text = JSON.stringify(big);
  assert.equal(await BoundedJson.stringify(big, text.length), text);
  assert.equal(await BoundedJson.stringify(big, text.length - 1), undefined);
  // a one-piece answer too
  const answer = { jsonrpc: '2.0', id: 1, result: '0x' + 'ab'.repeat(32) };
  const answerText = JSON.stringify(answer);
  assert.equal(await BoundedJson.stringify(answer, answerText.length), answerText);
  assert.equal(await BoundedJson.stringify(answer, answerText.length - 1), undefined);
  assert.equal(await BoundedJson.stringify(new RawJson('{"a": 1}')), '{"a": 1}');
  const raw = [new RawJson('{"a":1}'), { b: new RawJson('[2]') }];
  assert.equal(await BoundedJson.stringify(raw), '[{"a":1},{"b":[2]}]');
  // elsewhere (JSON.stringify) a RawJson gives the same text
  assert.equal(JSON.stringify(raw), '[{"a":1},{"b":[2]}]');
});

test('an answer whose result is already serialised is written at once, with the same text and bound', async () => {
  const block = new RawJson(JSON.stringify({ number: '0x1', transactions: ['0xab'], uncles: [] }));
  const answer = { jsonrpc: '2.0', id: 'x"1', result: block, extra: undefined, f: () => 1 };
  const text = JSON.stringify(answer);
  assert.equal(text, `{"jsonrpc":"2.0","id":"x\\"1","result":${block.text}}`);
  assert.equal(await BoundedJson.stringify(answer), text);
  assert.equal(await BoundedJson.stringify(answer, text.length), text);
  assert.equal(await BoundedJson.stringify(answer, text.length - 1), undefined);
  // a member that is neither flat nor serialised: the walk, still the same text
  const nested = { jsonrpc: '2.0', id: 2, result: { a: { b: [{ c: 1 }] }, d: block } };
  assert.equal(await BoundedJson.stringify(nested), JSON.stringify(nested));
  assert.equal(await BoundedJson.stringify({}), '{}');
  assert.equal(
    await BoundedJson.stringify({ a: new RawJson('1'), b: [1, 2], c: null }),
    '{"a":1,"b":[1,2],"c":null}',
  );
});
