import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KVEngineMissingError } from '../../../../src/storage/kv/errors.ts';
import { importEngineModule } from '../../../../src/storage/kv/rocksdb.ts';
import { ChainError } from '../../../../src/util/errors.ts';

test('a missing optional engine package is a typed error naming the package to install', async () => {
  const err = await importEngineModule('rocksdb', 'rocksdb-native-not-installed-for-this-test').then(
    () => assert.fail('import should have failed'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof KVEngineMissingError);
  assert.ok(err instanceof ChainError);
  assert.equal(err.code, 'KV_ENGINE_MISSING');
  assert.equal(err.packageName, 'rocksdb-native-not-installed-for-this-test');
  assert.match(err.message, /npm install rocksdb-native-not-installed-for-this-test/);
  assert.match(err.message, /ss-backend = "pebbledb"/);
});

test('the installed rocksdb-native package loads', async () => {
  const RocksDB = await importEngineModule<unknown>('rocksdb', 'rocksdb-native');
  assert.equal(typeof RocksDB, 'function');
});
