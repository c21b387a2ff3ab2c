import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { AccountReader } from '../../../src/app/accounts.ts';
import { Bank } from '../../../src/app/bank.ts';
import { Evm } from '../../../src/app/evm.ts';
import { bankKeys, evmKeys, STORES } from '../../../src/app/store-keys.ts';
import { ForkCache } from '../../../src/fork/cache.ts';
import { ForkedState, forkStores, type RemoteSource } from '../../../src/fork/forked-state.ts';
import { forkKeyOf, TOMBSTONE } from '../../../src/fork/keys.ts';
import { ForkRemote, ForkRemoteError, type RpcCall } from '../../../src/fork/remote.ts';
import { readId } from '../../../src/execution/version-reads.ts';
import { StateOverlay } from '../../../src/state/overlay.ts';
import { MemoryKVStore } from '../../../src/storage/kv/memory.ts';
import type { KVEntry } from '../../../src/storage/kv/types.ts';
import type { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import type { ChangeSet } from '../../../src/storage/sc/types.ts';
import type { StateStore, StoreChange } from '../../../src/storage/ss/types.ts';
import { BASE_DENOM } from '../../../src/primitives/identity.ts';

const A = new Uint8Array(20).fill(0xaa);
const SLOT = new Uint8Array(32).fill(0x01);
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');

/** A remote holding one account (1.5 ether + 7 wei, nonce 3, code 0x6001) and one slot. */
function fakeRemote(): RemoteSource & { calls: RpcCall[][]; fail?: string } {
  const remote = {
    url: 'http://remote.test',
    calls: [] as RpcCall[][],
    fail: undefined as string | undefined,
    batchSync(calls: RpcCall[], what: string): unknown[] {
      if (remote.fail) throw new ForkRemoteError(remote.url, what, remote.fail);
      remote.calls.push(calls);
      return calls.map((c) => {
        assert.equal(c.params.at(-1), '0x10', 'every read is at the fork block');
        const mine = c.params[0] === hex(A);
        switch (c.method) {
          case 'eth_getBalance':
            return mine ? '0x' + (15n * 10n ** 17n + 7n).toString(16) : '0x0';
          case 'eth_getTransactionCount':
            return mine ? '0x3' : '0x0';
          case 'eth_getCode':
            return mine ? '0x6001' : '0x';
          case 'eth_getStorageAt':
            return mine && c.params[1] === hex(SLOT) ? '0x2a' : '0x' + '00'.repeat(32);
          default:
            throw new Error(c.method);
        }
      });
    },
  };
  return remote;
}

function forked() {
  const remote = fakeRemote();
  const db = new MemoryKVStore();
  const cache = new ForkCache(db);
  const state = new ForkedState(remote, 16, cache);
  const local = new Map<string, Uint8Array>();
  const read = (store: string, key: Uint8Array) =>
    state.readSync(store, key, (s, k) => local.get(readId(s, k)));
  return { remote, db, cache, state, local, reader: { get: read } };
}

test('keys: only EVM account fields and slots of 20-byte addresses, uchain only, come from the remote', () => {
  assert.deepEqual(forkKeyOf(STORES.evm, evmKeys.nonce(A))?.kind, 'account');
  assert.deepEqual(forkKeyOf(STORES.evm, evmKeys.storage(A, SLOT))?.kind, 'storage');
  assert.equal(forkKeyOf(STORES.bank, bankKeys.balance(A, BASE_DENOM))?.kind, 'account');
  assert.equal(forkKeyOf(STORES.bank, bankKeys.weiRemainder(A))?.kind, 'account');
  assert.equal(forkKeyOf(STORES.bank, bankKeys.balance(A, 'other')), undefined);
  assert.equal(forkKeyOf(STORES.bank, bankKeys.balance(new Uint8Array(32), BASE_DENOM)), undefined);
  assert.equal(forkKeyOf(STORES.evm, evmKeys.associationByEvm(A)), undefined);
  assert.equal(forkKeyOf(STORES.acc, new Uint8Array(21)), undefined);
});

test('an account is fetched once, all fields in one batch, and read through the app modules', () => {
  const { remote, reader } = forked();
  const acc = new AccountReader(reader);
  assert.equal(acc.balance(A), 15n * 10n ** 17n + 7n);
  assert.equal(acc.nonce(A), 3n);
  assert.equal(hex(acc.code(A)), '0x6001');
  assert.equal(acc.codeHash(A).length, 32);
  assert.equal(remote.calls.length, 1);
  assert.deepEqual(
    remote.calls[0].map((c) => c.method),
    ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'],
  );
  assert.equal(hex(acc.storage(A, SLOT)), '0x' + '2a'.padStart(64, '0'));
  assert.equal(
    acc.storage(A, new Uint8Array(32)).every((b) => b === 0),
    true,
  );
  acc.storage(A, SLOT);
  assert.equal(remote.calls.length, 3, 'a slot per request, each once (absent ones too)');
  // keys the remote cannot know are never asked for
  assert.equal(reader.get(STORES.evm, evmKeys.associationByEvm(A)), undefined);
  assert.equal(remote.calls.length, 3);
});

test('local values win; a tombstone reads absent without asking the remote', () => {
  const { remote, local, reader } = forked();
  local.set(readId(STORES.evm, evmKeys.nonce(A)), new Uint8Array([0, 0, 0, 0, 0, 0, 0, 9]));
  local.set(readId(STORES.evm, evmKeys.storage(A, SLOT)), TOMBSTONE);
  const acc = new AccountReader(reader);
  assert.equal(acc.nonce(A), 9n);
  assert.equal(
    acc.storage(A, SLOT).every((b) => b === 0),
    true,
  );
  assert.equal(remote.calls.length, 0);
});

test('one half of a bank balance held locally makes the whole balance local', () => {
  const { remote, local, reader } = forked();
  // genesis writes only the uchain half
  local.set(readId(STORES.bank, bankKeys.balance(A, BASE_DENOM)), new TextEncoder().encode('5'));
  assert.equal(new AccountReader(reader).balance(A), 5n * 10n ** 12n);
  assert.equal(remote.calls.length, 0);
});

test('the cache outlives the process: a new cache over the same database answers without the remote', async () => {
  const { remote, db, cache, reader } = forked();
  const acc = new AccountReader(reader);
  const balance = acc.balance(A);
  acc.storage(A, SLOT);
  acc.storage(A, new Uint8Array(32));
  // the database writes are not awaited by the reads
  await cache.flush();
  const gone = fakeRemote();
  gone.fail = 'gone';
  const again = new ForkedState(gone, 16, new ForkCache(db));
  const read = new AccountReader({ get: (s, k) => again.readSync(s, k, () => undefined) });
  assert.equal(read.balance(A), balance);
  assert.equal(hex(read.storage(A, SLOT)), '0x' + '2a'.padStart(64, '0'));
  assert.equal(
    read.storage(A, new Uint8Array(32)).every((b) => b === 0),
    true,
  );
  assert.equal(remote.calls.length, 3);
  // what was never fetched needs the remote, and says which
  assert.throws(
    () => read.nonce(new Uint8Array(20).fill(1)),
    /the fork's remote http:\/\/remote\.test failed/,
  );
});

test('a remote that fails fails the read (nothing is cached, nothing reads as zero)', () => {
  const { remote, reader } = forked();
  remote.fail = 'connection refused';
  const acc = new AccountReader(reader);
  assert.throws(
    () => acc.balance(A),
    (e: unknown) =>
      e instanceof ForkRemoteError &&
      /remote\.test failed to read account 0xaa.*connection refused/.test(e.message),
  );
  remote.fail = undefined;
  assert.equal(acc.balance(A), 15n * 10n ** 17n + 7n);
});

/** In-memory stand-ins that record what the wrappers hand down. */
function fakeStores() {
  const sc = new Map<string, Uint8Array>();
  const ss = new Map<string, Uint8Array>();
  const entries = (m: Map<string, Uint8Array>, store: string) =>
    (async function* (): AsyncGenerator<KVEntry> {
      for (const [id, v] of m)
        if (id.startsWith(store + '\0')) yield [Buffer.from(id.slice(store.length + 1), 'latin1'), v];
    })();
  const rawSc = {
    version: 5,
    get: (store: string, key: Uint8Array) => sc.get(readId(store, key)),
    applyChangeSets(_v: number, cs: ChangeSet[]) {
      for (const c of cs)
        for (const p of c.pairs)
          if (p.value === undefined) sc.delete(readId(c.store, p.key));
          else sc.set(readId(c.store, p.key), p.value);
    },
    iterate: (store: string) => entries(sc, store),
  } as unknown as CommitStore;
  const rawSs = {
    get: async (store: string, key: Uint8Array) => ss.get(readId(store, key)),
    async applyChangeSet(_v: number, changes: StoreChange[]) {
      for (const c of changes)
        if (c.value === null) ss.delete(readId(c.store, c.key));
        else ss.set(readId(c.store, c.key), c.value);
    },
    iterator: (store: string) => entries(ss, store),
    syncReaderAt: async () => (store: string, key: Uint8Array) => ss.get(readId(store, key)),
    latestVersion: () => 5,
  } as unknown as StateStore;
  return { sc, ss, rawSc, rawSs };
}

test('the wrapped stores: a delete of a fork key is written as a tombstone to both, and reads as absent everywhere', async () => {
  const { state, remote } = forked();
  const { sc, ss, rawSc, rawSs } = fakeStores();
  const w = forkStores({ sc: rawSc, ss: rawSs }, state);
  assert.equal(w.sc.version, 5, 'everything else is the store itself');
  assert.equal(w.ss.latestVersion(), 5);

  // a block spends the forked balance entirely, zeroes the slot, deletes a local-only key
  const overlay = new StateOverlay(w.sc);
  const bank = new Bank(overlay);
  assert.equal(bank.wei(A), 15n * 10n ** 17n + 7n);
  bank.setWei(A, 0n);
  new Evm(overlay).setStorage(A, SLOT, new Uint8Array(32));
  overlay.delete(STORES.acc, new Uint8Array([1, 2]));
  const changes = overlay.changes();
  w.sc.applyChangeSets(
    6,
    changes.map((c) => ({ store: c.store, pairs: c.writes.map((x) => ({ key: x.key, value: x.value })) })),
  );
  await w.ss.applyChangeSet(
    6,
    changes.flatMap((c) => c.writes.map((x) => ({ store: c.store, key: x.key, value: x.value ?? null }))),
  );
  for (const m of [sc, ss]) {
    assert.deepEqual(m.get(readId(STORES.bank, bankKeys.balance(A, BASE_DENOM))), TOMBSTONE);
    assert.deepEqual(m.get(readId(STORES.bank, bankKeys.weiRemainder(A))), TOMBSTONE);
    assert.deepEqual(m.get(readId(STORES.evm, evmKeys.storage(A, SLOT))), TOMBSTONE);
    assert.equal(m.has(readId(STORES.acc, new Uint8Array([1, 2]))), false, 'other deletes stay deletes');
  }
  const calls = remote.calls.length;
  assert.equal(new AccountReader(w.sc).balance(A), 0n);
  assert.equal(
    new AccountReader(w.sc).storage(A, SLOT).every((b) => b === 0),
    true,
  );
  assert.equal(await w.ss.get(STORES.evm, evmKeys.storage(A, SLOT), 6), undefined);
  assert.equal(await w.ss.has(STORES.bank, bankKeys.weiRemainder(A), 6), false);
  const sync = (await w.ss.syncReaderAt!(6))!;
  assert.equal(sync(STORES.bank, bankKeys.balance(A, BASE_DENOM)), undefined);
  assert.equal(remote.calls.length, calls, 'tombstones never ask the remote');
  // listings leave tombstones out
  const listed: KVEntry[] = [];
  for await (const e of w.ss.iterator(STORES.bank, undefined, undefined, 6)) listed.push(e);
  for await (const e of w.sc.iterate(STORES.bank, undefined, undefined, 6)) listed.push(e);
  assert.deepEqual(listed, []);
  // the nonce was never written here: still the remote's
  assert.equal(new AccountReader(w.sc).nonce(A), 3n);
});

/** A JSON-RPC server in another process (the remote client blocks this thread while it waits). */
async function serverProcess(script: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [data] = (await once(child.stdout, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${data.toString().trim()}`, stop: () => child.kill() };
}

test('ForkRemote: answers synchronously; a refused or silent remote fails with its URL, and is not asked again at once', async (t) => {
  const answering = await serverProcess(`
    const s = require('node:http').createServer((req, res) => {
      let b = ''; req.on('data', (c) => (b += c)); req.on('end', () => {
        const calls = JSON.parse(b);
        res.end(JSON.stringify(calls.map((c) => ({ jsonrpc: '2.0', id: c.id, result: c.method + ':' + c.params.join(',') }))));
      });
    }).listen(0, '127.0.0.1', () => console.log(s.address().port));`);
  const silent = await serverProcess(`
    const s = require('node:http').createServer(() => {}).listen(0, '127.0.0.1', () => console.log(s.address().port));`);
  t.after(() => {
    answering.stop();
    silent.stop();
  });

  const ok = new ForkRemote(answering.url);
  t.after(() => ok.close());
  assert.deepEqual(
    ok.batchSync(
      [
        { method: 'eth_getBalance', params: ['0x1', '0x10'] },
        { method: 'eth_getCode', params: ['0x1', '0x10'] },
      ],
      'to test',
    ),
    ['eth_getBalance:0x1,0x10', 'eth_getCode:0x1,0x10'],
  );

  const hung = new ForkRemote(silent.url, 300);
  t.after(() => hung.close());
  const started = Date.now();
  assert.throws(
    () => hung.batchSync([{ method: 'eth_chainId', params: [] }], 'to read account 0x1'),
    new RegExp(`the fork's remote ${silent.url} failed to read account 0x1: no answer within 300 ms`),
  );
  assert.ok(Date.now() - started < 5_000);
  assert.throws(() => hung.batchSync([{ method: 'eth_chainId', params: [] }], 'again'), /not asked again/);

  answering.stop();
  await new Promise((r) => setTimeout(r, 200));
  const refused = new ForkRemote(answering.url);
  t.after(() => refused.close());
  assert.throws(
    () => refused.batchSync([{ method: 'eth_chainId', params: [] }], 'to test'),
    (e: unknown) => e instanceof ForkRemoteError && e.message.includes(answering.url),
  );
});
