import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GO_ZERO_TIME } from '../../../../src/codec/index.ts';
import { rfc3339Nano } from '../../../../src/rpc/consensus/encoding.ts';
import { InvalidParamsError } from '../../../../src/rpc/consensus/errors.ts';
import { decToProto } from '../../../../src/rpc/consensus/grpc-queries.ts';
import { parseTxQuery } from '../../../../src/rpc/consensus/tx-query.ts';

test("times are Go's RFC3339Nano: UTC, trailing fraction zeros trimmed", () => {
  assert.equal(rfc3339Nano({ seconds: 1767225600, nanos: 0 }), '2026-01-01T00:00:00Z');
  assert.equal(rfc3339Nano({ seconds: 1767225600, nanos: 250_000_000 }), '2026-01-01T00:00:00.25Z');
  assert.equal(rfc3339Nano({ seconds: 1767225600, nanos: 123_456_789 }), '2026-01-01T00:00:00.123456789Z');
  assert.equal(rfc3339Nano({ seconds: 1767225600, nanos: 1 }), '2026-01-01T00:00:00.000000001Z');
  assert.equal(rfc3339Nano(GO_ZERO_TIME), '0001-01-01T00:00:00Z');
});

test('LegacyDec text becomes the integer scaled by 10^18 (its protobuf form)', () => {
  assert.equal(decToProto('0.100000000000000000'), '100000000000000000');
  assert.equal(decToProto('1000000.000000000000000000'), '1000000000000000000000000');
  assert.equal(decToProto('7'), '7000000000000000000');
  assert.equal(decToProto('0.5'), '500000000000000000');
  assert.throws(() => decToProto('1.2.3'));
});

test('tx_search queries: tx.height comparisons joined by AND, tx.hash equality', () => {
  assert.deepEqual(parseTxQuery('tx.height=5'), { minHeight: 5, maxHeight: 5 });
  assert.deepEqual(parseTxQuery('tx.height >= 3 AND tx.height < 9'), { minHeight: 3, maxHeight: 8 });
  assert.deepEqual(parseTxQuery('tx.height>3 AND tx.height<=4 AND tx.height > 1'), {
    minHeight: 4,
    maxHeight: 4,
  });
  const hash = 'AB'.repeat(32);
  assert.deepEqual(parseTxQuery(`tx.hash='${hash}'`), { hash: new Uint8Array(32).fill(0xab) });
  const refused = (q: string, data: string) =>
    assert.throws(
      () => parseTxQuery(q),
      (e: unknown) => e instanceof InvalidParamsError && e.data === data,
    );
  refused('', 'query is empty');
  refused('tx.height=x', 'query: tx.height needs an integer, got x');
  refused('tx.hash>1', 'query: tx.hash supports only =, got >');
  refused("tx.hash='AB'", 'query: tx.hash must be 32 bytes, got 1');
  refused(
    "transfer.recipient='a'",
    'query: condition on "transfer.recipient" is not supported (supported: tx.height, tx.hash)',
  );
  refused('garbage', 'query: cannot parse condition "garbage"');
});
