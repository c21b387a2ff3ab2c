import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBlockNumber, parseBlockRef } from '../../../../src/rpc/codecs/block-ref.ts';
import { CodecError } from '../../../../src/rpc/codecs/errors.ts';
import { parseFilter } from '../../../../src/rpc/codecs/filter.ts';
import {
  address,
  data,
  hash32,
  parseAddress,
  parseData,
  parseHash,
  parseQuantity,
  quantity,
} from '../../../../src/rpc/codecs/hex.ts';
import { p } from '../../../../src/rpc/codecs/params.ts';

const fails = (fn: () => unknown, message: string) =>
  assert.throws(fn, (err: unknown) => err instanceof CodecError && err.message === message);

test('quantities follow geth hexutil: 0x prefix, no leading zeros, bounded', () => {
  assert.equal(parseQuantity('0x0'), 0n);
  assert.equal(parseQuantity('0x1f'), 31n);
  assert.equal(parseQuantity('0XAbC'), 0xabcn);
  assert.equal(parseQuantity('0x' + 'f'.repeat(64)), 2n ** 256n - 1n);
  fails(() => parseQuantity('0x1' + '0'.repeat(64)), 'hex number > 256 bits');
  fails(() => parseQuantity('0x10000000000000000', 64), 'hex number > 64 bits');
  assert.equal(parseQuantity('0xffffffffffffffff', 64), 2n ** 64n - 1n);
  fails(() => parseQuantity(''), 'empty hex string');
  fails(() => parseQuantity('12'), 'hex string without 0x prefix');
  fails(() => parseQuantity('0x'), 'hex string "0x"');
  fails(() => parseQuantity('0x00'), 'hex number with leading zero digits');
  fails(() => parseQuantity('0x0g'), 'invalid hex string');
  fails(() => parseQuantity(12), 'json: cannot unmarshal number into Go value of type *hexutil.Big');
  fails(() => parseQuantity(null, 64), 'json: cannot unmarshal null into Go value of type hexutil.Uint64');
});

test('data is even-length hex; addresses and hashes have exact lengths, any case', () => {
  assert.deepEqual(parseData('0x'), new Uint8Array(0));
  assert.deepEqual(parseData('0x00ff'), Uint8Array.of(0, 255));
  fails(() => parseData('0x0'), 'hex string of odd length');
  fails(() => parseData('00'), 'hex string without 0x prefix');
  fails(() => parseData('0xzz'), 'invalid hex string');
  const checksummed = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
  assert.equal(address(parseAddress(checksummed)), checksummed.toLowerCase());
  // a wrong checksum is accepted (geth does not require it on input)
  assert.equal(
    address(parseAddress('0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266')),
    checksummed.toLowerCase(),
  );
  fails(() => parseAddress('0x1234'), 'hex string has length 4, want 40 for common.Address');
  fails(() => parseHash('0x' + '00'.repeat(31)), 'hex string has length 62, want 64 for common.Hash');
  fails(() => parseAddress(['0x']), 'json: cannot unmarshal array into Go value of type common.Address');
  assert.equal(address(parseAddress('0X' + 'aB'.repeat(20))), '0x' + 'ab'.repeat(20));
  // a character that is not a hex digit, at each place of an address of the right length
  const digits = 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266';
  for (let i = 0; i < digits.length; i++) {
    for (const bad of ['g', 'x', ' ', '\u00e9', '\u0660', '/', ':', '@', 'G', '`']) {
      const s = '0x' + digits.slice(0, i) + bad + digits.slice(i + 1);
      fails(() => parseAddress(s), 'invalid hex string');
    }
  }
  fails(() => parseAddress('00' + digits), 'hex string without 0x prefix');
  fails(() => parseAddress('1x' + digits), 'hex string without 0x prefix');
  fails(() => parseAddress(''), 'empty hex string');
});

test('formatting: minimal quantities, lower-case data, padded hashes', () => {
  assert.equal(quantity(0n), '0x0');
  assert.equal(quantity(255), '0xff');
  assert.throws(() => quantity(-1n), RangeError);
  assert.equal(data(new Uint8Array(0)), '0x');
  assert.equal(data(Uint8Array.of(0xab, 0x01)), '0xab01');
  assert.equal(hash32(new Uint8Array(0)), '0x' + '00'.repeat(32));
  assert.equal(hash32(new Uint8Array(32).fill(0xee)), '0x' + 'ee'.repeat(32));
});

test('storage keys: geth left-pads short keys and accepts odd length', () => {
  const key = p.storageKey.parse('0x1');
  assert.equal(data(key), '0x' + '00'.repeat(31) + '01');
  assert.equal(data(p.storageKey.parse('0x' + 'ab'.repeat(32))), '0x' + 'ab'.repeat(32));
  fails(() => p.storageKey.parse('0x' + 'ab'.repeat(33)), 'hex string too long, want at most 32 bytes');
});

test('block numbers: tags, hex, int64 bound', () => {
  for (const tag of ['earliest', 'latest', 'safe', 'finalized', 'pending'])
    assert.deepEqual(parseBlockNumber(tag), { kind: 'tag', tag });
  assert.deepEqual(parseBlockNumber('0x10'), { kind: 'number', height: 16 });
  fails(() => parseBlockNumber('Latest'), 'hex string without 0x prefix');
  fails(() => parseBlockNumber('0x8000000000000000'), 'block number larger than int64');
  fails(
    () => parseBlockNumber(5),
    'invalid block number 5: want a hex number or one of earliest, latest, safe, finalized, pending',
  );
});

test('block references: hash strings and EIP-1898 objects', () => {
  const h = '0x' + 'ab'.repeat(32);
  assert.deepEqual(parseBlockRef(h), { kind: 'hash', hash: parseHash(h), requireCanonical: false });
  assert.deepEqual(parseBlockRef({ blockHash: h, requireCanonical: true }), {
    kind: 'hash',
    hash: parseHash(h),
    requireCanonical: true,
  });
  assert.deepEqual(parseBlockRef({ blockNumber: '0x2' }), { kind: 'number', height: 2 });
  assert.deepEqual(parseBlockRef({ blockNumber: 'safe' }), { kind: 'tag', tag: 'safe' });
  fails(
    () => parseBlockRef({ blockHash: h, blockNumber: '0x1' }),
    'cannot specify both BlockHash and BlockNumber, choose one or the other',
  );
  fails(() => parseBlockRef({}), 'either blockHash or blockNumber must be specified');
  fails(
    () => parseBlockRef({ blockNumber: '0x1', requireCanonical: true }),
    'requireCanonical is only allowed with blockHash',
  );
  fails(() => parseBlockRef({ blockHash: h, requireCanonical: 'yes' }), 'requireCanonical must be a boolean');
  fails(() => parseBlockRef({ hash: h }), 'unknown field "hash" in block reference');
  fails(() => parseBlockRef({ blockHash: '0x12' }), 'hex string has length 2, want 64 for common.Hash');
});

test('log filters: address forms, topic positions, blockHash exclusivity, bounds', () => {
  const a = '0x' + '11'.repeat(20);
  const b = '0x' + '22'.repeat(20);
  const t1 = '0x' + 'aa'.repeat(32);
  const t2 = '0x' + 'bb'.repeat(32);
  assert.deepEqual(parseFilter({}), { addresses: [], topics: [] });
  const f = parseFilter({
    fromBlock: '0x1',
    toBlock: 'latest',
    address: [a, b],
    topics: [t1, null, [t1, t2], []],
  });
  assert.deepEqual(f.fromBlock, { kind: 'number', height: 1 });
  assert.deepEqual(f.toBlock, { kind: 'tag', tag: 'latest' });
  assert.deepEqual(f.addresses.map(address), [a, b]);
  assert.deepEqual(
    f.topics.map((x) => x?.map(hash32) ?? null),
    [[t1], null, [t1, t2], null],
  );
  assert.deepEqual(parseFilter({ address: a }).addresses.map(address), [a]);
  assert.deepEqual(parseFilter({ address: null, topics: null }), { addresses: [], topics: [] });
  assert.equal(hash32(parseFilter({ blockHash: t1 }).blockHash!), t1);
  fails(
    () => parseFilter({ blockHash: t1, fromBlock: '0x1' }),
    'cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other',
  );
  fails(() => parseFilter({ topics: [null, null, null, null, null] }), 'too many topics: 5, at most 4');
  fails(
    () => parseFilter({ address: [a, '0x12'] }),
    'address[1]: hex string has length 2, want 40 for common.Address',
  );
  fails(
    () => parseFilter({ topics: [[t1, '0x1']] }),
    'topics[0][1]: hex string has length 1, want 64 for common.Hash',
  );
  fails(() => parseFilter({ fromBlock: 'soon' }), 'fromBlock: hex string without 0x prefix');
  fails(() => parseFilter({ topics: t1 }), 'topics must be an array');
  fails(() => parseFilter({ limit: 5 }), 'unknown field "limit" in filter');
  fails(
    () => parseFilter('x'),
    'filter must be an object with fromBlock, toBlock, blockHash, address, topics',
  );
});
