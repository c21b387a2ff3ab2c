import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidParamsError } from '../../../../src/rpc/consensus/errors.ts';
import { Params } from '../../../../src/rpc/consensus/params.ts';

const uri = (q: string, names: string[]) =>
  new Params({ form: 'uri', values: new Map(new URLSearchParams(q)) }, names);
const json = (v: unknown, names: string[]) => new Params({ form: 'json', values: v }, names);
const refused = (fn: () => unknown, data: string) =>
  assert.throws(fn, (e: unknown) => e instanceof InvalidParamsError && e.data === data);

test('URI form: bare and quoted numbers and strings, 0x hex and quoted bytes, booleans, empty = absent', () => {
  const p = uri('height=5&path="/a/b"&hash=0xABcd&tx="hi"&prove=true&page=', [
    'height',
    'path',
    'hash',
    'tx',
    'prove',
    'page',
  ]);
  assert.equal(p.int('height'), 5);
  assert.equal(p.string('path'), '/a/b');
  assert.deepEqual(p.bytes('hash'), Uint8Array.of(0xab, 0xcd));
  assert.deepEqual(p.bytes('tx'), new TextEncoder().encode('hi'));
  assert.equal(p.bool('prove'), true);
  assert.equal(p.int('page'), undefined);
  assert.equal(uri('height="7"', ['height']).int('height'), 7);
  assert.deepEqual(uri('data=0a0b', ['data']).hexBytes('data'), Uint8Array.of(10, 11));
  refused(
    () => uri('hash=abcd', ['hash']).bytes('hash'),
    'hash: expected 0x-prefixed hex or a quoted string, got "abcd"',
  );
  refused(() => uri('hash=0xabc', ['hash']).bytes('hash'), 'hash: expected hex, got "0xabc"');
});

test('JSON form: named or positional; int64 as number or string; []byte as base64; HexBytes as hex', () => {
  const named = json({ height: '9', tx: 'AQID', data: 'ff00', prove: false }, [
    'height',
    'tx',
    'data',
    'prove',
  ]);
  assert.equal(named.int('height'), 9);
  assert.deepEqual(named.bytes('tx'), Uint8Array.of(1, 2, 3));
  assert.deepEqual(named.hexBytes('data'), Uint8Array.of(0xff, 0));
  assert.equal(named.bool('prove'), false);
  const positional = json([3, null, 'x'], ['height', 'page', 'query']);
  assert.equal(positional.int('height'), 3);
  assert.equal(positional.int('page'), undefined);
  assert.equal(positional.string('query'), 'x');
  assert.equal(json(undefined, ['height']).int('height'), undefined);
});

test('bad values and shapes are refused with the parameter named', () => {
  refused(() => json({ height: 1.5 }, ['height']).int('height'), 'height: expected an integer, got 1.5');
  refused(
    () => json({ height: '9007199254740993' }, ['height']).int('height'),
    'height: expected an integer, got "9007199254740993"',
  );
  refused(() => json({ tx: 'a' }, ['tx']).bytes('tx'), 'tx: expected base64, got "a"');
  refused(() => json({ q: 5 }, ['q']).string('q'), 'q: expected a string, got 5');
  refused(() => json({ prove: 'yes' }, ['prove']).bool('prove'), 'prove: expected true or false, got "yes"');
  refused(() => json({ x: 1 }, ['height']), 'unknown parameter "x" (this route takes: height)');
  refused(() => json([1, 2], ['height']), 'expected at most 1 positional params (height), got 2');
  refused(() => json('str', ['height']), 'params must be an object or an array');
  refused(() => uri('a=1', []), 'unknown parameter "a" (this route takes: none)');
});
