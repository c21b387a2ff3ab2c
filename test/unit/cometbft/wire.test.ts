import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AbciFramingError, encodeRequest, FrameReader, Request } from '../../../src/cometbft/abci/wire.ts';

test('frames split anywhere across chunks come out whole and in order; a length prefix of several bytes is read', () => {
  const big = encodeRequest({ checkTx: { tx: new Uint8Array(300).fill(7), type: 0 } });
  const small = encodeRequest({ flush: {} });
  assert.ok(big[0] & 0x80, 'a multi-byte length prefix');
  const stream = Buffer.concat([big, small, big]);
  for (const cut of [1, 2, 3, big.length - 1, big.length, big.length + 1, stream.length - 1]) {
    const r = new FrameReader();
    const bodies = [...r.push(stream.subarray(0, cut)), ...r.push(stream.subarray(cut))];
    assert.equal(bodies.length, 3, `cut at ${cut}`);
    assert.equal(Request.decode(bodies[0]).checkTx!.tx.length, 300);
    assert.ok(Request.decode(bodies[1]).flush);
    assert.equal(Buffer.from(bodies[2]).toString('hex'), Buffer.from(bodies[0]).toString('hex'));
  }
});

test('a length prefix that never ends, or a message over the size limit, is a framing error', () => {
  assert.throws(() => new FrameReader().push(new Uint8Array(6).fill(0xff)), AbciFramingError);
  assert.throws(() => new FrameReader().push(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x7f)), /exceeds/);
});
