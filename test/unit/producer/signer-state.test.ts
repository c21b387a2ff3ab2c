import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DoubleSignError, SignerState, STEP_PRECOMMIT } from '../../../src/producer/signer-state.ts';

function stateFile(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'chaind-signer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'priv_validator_state.json');
  writeFileSync(path, JSON.stringify({ height: '0', round: 0, step: 0 }));
  return path;
}

const sign = (bytes: Uint8Array) => Uint8Array.from([...bytes].reverse());
const at = (height: number) => ({ height, round: 0, step: STEP_PRECOMMIT });

test('the signed position is the guard at once, on disk once flushed, and never goes back', async (t) => {
  const path = stateFile(t);
  const s = new SignerState(path);
  const sig = s.sign(at(1), Uint8Array.of(1, 2), sign);
  assert.deepEqual(sig, Uint8Array.of(2, 1));
  assert.throws(
    () => s.sign(at(1), Uint8Array.of(9), sign),
    DoubleSignError,
    'refused before the write ends',
  );
  await s.flushed();
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual([saved.height, saved.round, saved.step, saved.signbytes], ['1', 0, 3, '0102']);
  assert.throws(() => new SignerState(path).sign(at(0), Uint8Array.of(9), sign), DoubleSignError);
});

test('writes land in signing order, the last one wins', async (t) => {
  const path = stateFile(t);
  const s = new SignerState(path);
  for (let h = 1; h <= 20; h++) s.sign(at(h), Uint8Array.of(h), sign);
  await s.flushed();
  assert.equal(JSON.parse(readFileSync(path, 'utf8')).height, '20');
});

test('without persist (a throwaway home) the guard holds in memory and the file is left as read', async (t) => {
  const path = stateFile(t);
  const before = readFileSync(path, 'utf8');
  const s = new SignerState(path, { persist: false });
  s.sign(at(1), Uint8Array.of(1), sign);
  s.sign(at(2), Uint8Array.of(2), sign);
  assert.throws(() => s.sign(at(2), Uint8Array.of(9), sign), DoubleSignError);
  assert.deepEqual(s.sign(at(2), Uint8Array.of(2), sign), Uint8Array.of(2), 'the same bytes re-sign');
  await s.flushed();
  assert.equal(readFileSync(path, 'utf8'), before);
});

test('a failed write stops the next signing with an error naming the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chaind-signer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'priv_validator_state.json');
  writeFileSync(path, JSON.stringify({ height: '0', round: 0, step: 0 }));
  const s = new SignerState(path);
  // the temporary file's name is taken by a directory: the write cannot open it
  mkdirSync(join(dir, '.priv_validator_state.json.tmp'));
  s.sign(at(1), Uint8Array.of(1), sign);
  await assert.rejects(s.flushed(), /priv_validator_state\.json: cannot write validator state/);
  assert.throws(() => s.sign(at(2), Uint8Array.of(2), sign), /cannot write validator state/);
  assert.equal(JSON.parse(readFileSync(path, 'utf8')).height, '0');
});

test('re-signing the identical bytes returns the saved signature; different bytes at the same position are refused', async (t) => {
  const path = stateFile(t);
  const first = new SignerState(path);
  first.sign(at(5), Uint8Array.of(5), sign);
  await first.flushed();
  let called = false;
  const again = new SignerState(path).sign(at(5), Uint8Array.of(5), (b) => {
    called = true;
    return sign(b);
  });
  assert.deepEqual(again, Uint8Array.of(5));
  assert.equal(called, false);
  assert.throws(
    () => new SignerState(path).sign(at(5), Uint8Array.of(6), sign),
    /refusing to sign different data at height 5/,
  );
  const next = new SignerState(path);
  next.sign(at(6), Uint8Array.of(6), sign);
  await next.flushed();
});

test('a missing state file is created only for a fresh chain', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'chaind-signer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.throws(
    () => SignerState.open(join(dir, 'a', 'priv_validator_state.json'), false),
    /cannot read validator state .*guards against double signing/,
  );
  const s = SignerState.open(join(dir, 'b', 'priv_validator_state.json'), true);
  assert.deepEqual(s.position, { height: 0, round: 0, step: 0 });
});

test('assertCanSign refuses, before anything is built, what sign would refuse for new bytes', async (t) => {
  const path = stateFile(t);
  const s = new SignerState(path);
  s.assertCanSign(at(1));
  s.sign(at(1), new Uint8Array([1]), sign);
  await s.flushed();
  assert.throws(() => s.assertCanSign(at(1)), DoubleSignError);
  assert.throws(
    () => s.assertCanSign(at(0)),
    /^DoubleSignError: refusing to sign height 0 round 0 step 3: already signed height 1 round 0 step 3$/,
  );
  s.assertCanSign(at(2));
  assert.equal(JSON.parse(readFileSync(path, 'utf8')).height, '1', 'checking writes nothing');
});
