import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChainError } from '../../../src/util/errors.ts';
import {
  isNoSpace,
  noSpaceDirIn,
  OutOfDiskError,
  outOfDiskIn,
  outOfDiskOr,
} from '../../../src/util/out-of-disk.ts';

const fsError = (code: string, errno: number) =>
  Object.assign(new Error(`${code}: write failed`), { code, errno: -errno });

test('a full disk is recognised in the forms the engines throw it', () => {
  assert.equal(isNoSpace(fsError('ENOSPC', 28)), true);
  assert.equal(isNoSpace(fsError('EDQUOT', 122)), true);
  // lmdb-js: the errno as `code`, the OS's words as the message
  assert.equal(
    isNoSpace(Object.assign(new Error('No space left on device: Attempting to write page'), { code: 28 })),
    true,
  );
  assert.equal(isNoSpace(fsError('EACCES', 13)), false);
  assert.equal(isNoSpace('ENOSPC'), false);
});

test('a no-space error becomes an OutOfDiskError naming the directory; any other error is left as it is', () => {
  const cause = fsError('ENOSPC', 28);
  const e = outOfDiskOr(cause, '/home/n/data/blockstore');
  assert.ok(e instanceof OutOfDiskError);
  assert.equal(e.code, 'OUT_OF_DISK');
  assert.equal(e.dir, '/home/n/data/blockstore');
  assert.equal(e.message, 'no space left on device writing /home/n/data/blockstore');
  assert.equal(e.cause, cause);
  assert.equal(outOfDiskOr(e, '/elsewhere'), e, 'already wrapped: the first directory stays');
  const other = fsError('EACCES', 13);
  assert.equal(outOfDiskOr(other, '/d'), other);
  // EIO counts only on a filesystem with next to nothing left: / on this machine has room
  const eio = fsError('EIO', 5);
  assert.equal(outOfDiskOr(eio, '/'), eio);
});

test('the OutOfDiskError in a cause chain is found, as a store wraps it', () => {
  const full = new OutOfDiskError('/d');
  const wrapped = new ChainError('SS_WRITER_FAILED', 'state store background writer failed', { cause: full });
  assert.equal(outOfDiskIn(wrapped), full);
  assert.equal(outOfDiskIn(new Error('x')), undefined);
  assert.equal(outOfDiskIn(undefined), undefined);
});

test('a Go error text names the directory of the file it could not write', () => {
  assert.equal(
    noSpaceDirIn('write /h/data/cometbft/cs.wal/wal: no space left on device'),
    '/h/data/cometbft/cs.wal',
  );
  assert.equal(
    noSpaceDirIn(
      'error writing batch to DB "failed to save block": (base 1, height 184): write /h/data/cometbft/blockstore.db/000001.log: no space left on device',
    ),
    '/h/data/cometbft/blockstore.db',
  );
  assert.equal(
    noSpaceDirIn('open /h/data/cometbft/state.db/LOCK: disk quota exceeded'),
    '/h/data/cometbft/state.db',
  );
  // the words without a path: a full disk, directory unknown
  assert.equal(noSpaceDirIn('no space left on device'), '');
  assert.equal(noSpaceDirIn('failed to save block: EOF'), undefined);
});
