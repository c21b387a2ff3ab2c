import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonDepthExceeds, parseJsonRpcBody } from '../../../../src/rpc/server/json-body.ts';

const exceeds = (text: string, max: number) => jsonDepthExceeds(Buffer.from(text), max);

test('JSON depth: arrays and objects count, brackets in strings and escaped quotes do not', () => {
  assert.equal(exceeds('[[[]]]', 3), false);
  assert.equal(exceeds('[[[[]]]]', 3), true);
  assert.equal(exceeds('{"a":{"b":[1]}}', 3), false);
  assert.equal(exceeds('{"a":{"b":[[1]]}}', 3), true);
  assert.equal(exceeds('["[[[[[[", "{{{{"]', 1), false);
  // an escaped quote does not end the string; an escaped backslash does not escape the quote after it
  assert.equal(exceeds('["\\"[[[[[["]', 1), false);
  assert.equal(exceeds('["\\\\", [[1]]]', 2), true);
  // siblings do not add up
  assert.equal(exceeds('[[1],[2],[3],[4]]', 2), false);
});

test('parseJsonRpcBody: -32600 naming max_json_depth, -32700 for bad JSON, else the value', () => {
  assert.deepEqual(parseJsonRpcBody(Buffer.from('[[[1]]]'), 2).error?.error, {
    code: -32600,
    message: 'invalid request: JSON nested more than 2 levels deep (max_json_depth)',
  });
  assert.equal(parseJsonRpcBody(Buffer.from('{'), 2).error?.error?.code, -32700);
  assert.deepEqual(parseJsonRpcBody(Buffer.from('{"a":[1]}'), 2).payload, { a: [1] });
});

test('parseJsonRpcBody: a whole-number parameter above 2^53 - 1 keeps its digits, ids and nested values do not change', () => {
  const parse = (text: string) => parseJsonRpcBody(Buffer.from(text), 8).payload;
  // a rounded amount would be another amount: 1000000000000000001 reads as 1000000000000000000
  assert.deepEqual(parse('{"id":1,"method":"m","params":["0xab", 1000000000000000001, 7]}'), {
    id: 1,
    method: 'm',
    params: ['0xab', '1000000000000000001', 7],
  });
  assert.deepEqual(parse('[{"params":[18446744073709551615]},{"params":[1]}]'), [
    { params: ['18446744073709551615'] },
    { params: [1] },
  ]);
  // safe integers, exponents, fractions, negatives, ids and values inside objects: as JSON.parse reads them
  const same = [
    '{"id":12345678901234567890,"params":[{"value":12345678901234567890}, [12345678901234567890]]}',
    '{"params":[9007199254740991, 1e21, 12345678901234567.5, -12345678901234567890]}',
    '{"params":["a string with , 12345678901234567890 in it"]}',
  ];
  for (const text of same) assert.deepEqual(parse(text), JSON.parse(text), text);
});
