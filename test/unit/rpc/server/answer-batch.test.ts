import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { AnswerBatch } from '../../../../src/rpc/server/answer-batch.ts';

/** A socket that records what is written to it, into one log shared by every socket. */
function recorder(name: string, log: string[]): Socket & { destroyed: boolean } {
  const socket = { destroyed: false, write: (data: string | Buffer) => log.push(`${name}:${String(data)}`) };
  return socket as unknown as Socket & { destroyed: boolean };
}
const endOfTurn = () => new Promise((resolve) => setImmediate(resolve));

test("a turn's answers are written after the turn, together, in the order they were made", async () => {
  const log: string[] = [];
  const [a, b] = [recorder('a', log), recorder('b', log)];
  const batch = new AnswerBatch();
  assert.equal(batch.write(a, 'one'), 3);
  assert.equal(batch.write(b, Buffer.from('two!')), 4);
  assert.equal(batch.write(a, 'three'), 8, 'what is queued for a socket adds up');
  await Promise.resolve();
  assert.deepEqual(log, [], 'nothing is written before the turn ends');
  await endOfTurn();
  assert.deepEqual(log, ['a:one', 'b:two!', 'a:three']);
  assert.equal(batch.write(a, 'four'), 4, 'the count starts again after a flush');
  await endOfTurn();
  assert.deepEqual(log, ['a:one', 'b:two!', 'a:three', 'a:four']);
});

test('flush writes at once, each answer once; a destroyed socket is skipped', async () => {
  const log: string[] = [];
  const [a, b] = [recorder('a', log), recorder('b', log)];
  const batch = new AnswerBatch();
  batch.write(a, 'one');
  batch.write(b, 'two');
  b.destroyed = true;
  batch.flush();
  assert.deepEqual(log, ['a:one']);
  batch.write(a, 'three');
  await endOfTurn();
  assert.deepEqual(log, ['a:one', 'a:three'], 'the turn that was already scheduled writes what came after');
});
