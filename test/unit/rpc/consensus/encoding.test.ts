import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GO_ZERO_TIME } from '../../../../src/codec/index.ts';
import { rfc3339Nano } from '../../../../src/rpc/consensus/encoding.ts';
import { decToProto } from '../../../../src/rpc/consensus/grpc-queries.ts';

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
