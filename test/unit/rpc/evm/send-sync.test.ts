/** eth_sendRawTransactionSync's timeouts (geth 1.16's default and cap) and the words of its error. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goDuration, InclusionWaits, sendSyncMethods } from '../../../../src/rpc/evm/send-sync.ts';
import type { TxPool } from '../../../../src/rpc/evm/backend.ts';
import { toJsonRpcError } from '../../../../src/rpc/server/errors.ts';

const HASH = new Uint8Array(32).fill(0xab);

function setup() {
  const listeners = new Set<(h: number) => void>();
  const waits = new InclusionWaits({
    onBlock: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  });
  let mined = false;
  const pool = { submit: async () => HASH } as unknown as TxPool;
  const m = sendSyncMethods(pool, waits, () => (mined ? { ok: true } : null)).eth_sendRawTransactionSync;
  const block = () => {
    mined = true;
    for (const l of listeners) l(1);
  };
  return { waits, listeners, block, send: (...args: unknown[]) => m.handler(...args) as Promise<unknown> };
}

const message = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return toJsonRpcError(err, () => {});
  }
  assert.fail('expected an error');
};

test("geth's durations: ms below a second, seconds, minutes", () => {
  assert.equal(goDuration(100), '100ms');
  assert.equal(goDuration(1500), '1.5s');
  assert.equal(goDuration(20_000), '20s');
  assert.equal(goDuration(60_000), '1m0s');
});

test('the default is 20 s and a longer request is cut to 1 min; the error carries the hash', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { send, listeners } = setup();
  const absent = message(send(new Uint8Array([1]), undefined));
  const capped = message(send(new Uint8Array([1]), 120_000));
  await new Promise((r) => setImmediate(r));
  t.mock.timers.tick(20_000);
  assert.deepEqual(await absent, {
    code: 4,
    message: "The transaction was added to the transaction pool but wasn't processed in 20s",
    data: '0x' + 'ab'.repeat(32),
  });
  t.mock.timers.tick(40_000);
  assert.match((await capped)!.message, /processed in 1m0s$/);
  assert.equal(listeners.size, 0, 'every block listener is removed');
});

test('a block holding the tx answers; close() ends the others', async () => {
  const a = setup();
  const answered = a.send(new Uint8Array([1]), 5000);
  await new Promise((r) => setImmediate(r));
  a.block();
  assert.deepEqual(await answered, { ok: true });
  const b = setup();
  const waiting = message(b.send(new Uint8Array([1]), 5000));
  await new Promise((r) => setImmediate(r));
  b.waits.close();
  assert.match((await waiting)!.message, /node is stopping/);
  assert.equal(b.listeners.size, 0);
  assert.match((await message(b.send(new Uint8Array([1]), 5000)))!.message, /node is stopping/);
});
