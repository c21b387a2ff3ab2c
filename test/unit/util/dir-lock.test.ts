import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { acquireDirLock } from '../../../src/util/dir-lock.ts';
import { LockHeldError } from '../../../src/util/errors.ts';

function dir(t: { after(fn: () => void): void }) {
  const d = mkdtempSync(join(tmpdir(), 'chaind-lock-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

test('a held lock refuses a second holder with the spec wording and the path', (t) => {
  const d = dir(t);
  const lock = acquireDirLock(d);
  assert.throws(
    () => acquireDirLock(d),
    (e: unknown) =>
      e instanceof LockHeldError &&
      e.message ===
        `failed to initialize database: resource temporarily unavailable (lock ${join(d, 'LOCK')} is held by process ${process.pid})`,
  );
  lock.release();
  assert.equal(existsSync(join(d, 'LOCK')), false);
  acquireDirLock(d).release();
});

test('a lock held by another live process is refused; once it dies the lock is taken over', async (t) => {
  const d = dir(t);
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await new Promise((r) => child.once('spawn', r));
  writeFileSync(join(d, 'LOCK'), `${child.pid} \n`);
  assert.throws(() => acquireDirLock(d), LockHeldError);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const lock = acquireDirLock(d);
  lock.release();
});

test('a lock file from a recycled pid (different start time) is stale', (t) => {
  const d = dir(t);
  writeFileSync(join(d, 'LOCK'), `${process.pid} 1\n`); // our pid, but a start time that is not ours
  acquireDirLock(d).release();
});

test('release only removes our own lock file', (t) => {
  const d = dir(t);
  const lock = acquireDirLock(d);
  writeFileSync(join(d, 'LOCK'), '999999999 1\n'); // replaced behind our back
  lock.release();
  assert.equal(existsSync(join(d, 'LOCK')), true);
});
