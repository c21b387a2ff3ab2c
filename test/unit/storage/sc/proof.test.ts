import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  calculateExistenceRoot,
  iavlSpec,
  ics23,
  tendermintSpec,
  verifyMembership,
  verifyNonMembership,
} from '@confio/ics23';
import { MemoryKVStore } from '../../../../src/storage/kv/memory.ts';
import { CommitStore } from '../../../../src/storage/sc/commit-store.ts';
import { fromHex, toHex, utf8 } from '../../../../src/primitives/bytes.ts';
import { randomBlock, rng, tempDir, type Model } from './helpers.ts';

const STORES = ['acc', 'bank', 'evm', 'params', 'staking'];

function decodeOp(data: string): ics23.CommitmentProof {
  return ics23.CommitmentProof.decode(Buffer.from(data, 'base64'));
}

test('ICS23 proofs: existence and non-existence verify with @confio/ics23 against store root and app hash; tampering fails', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = rng(5);
    const sc = await CommitStore.open({
      dir,
      stores: STORES,
      stateCommitment: 'iavl',
      openKV: async () => new MemoryKVStore(),
      retainVersions: 4,
      snapshotInterval: 5,
    });
    const model: Model = new Map();
    const history: { model: Model; appHash: string }[] = [];
    for (let v = 1; v <= 12; v++) {
      sc.applyChangeSets(v, randomBlock(r, model, STORES, 40));
      const { appHash } = await sc.commit();
      history.push({
        model: new Map([...model].map(([s, kv]) => [s, new Map(kv)])),
        appHash: toHex(appHash),
      });
    }
    let existence = 0;
    let absence = 0;
    // latest, a retained older version, and one rebuilt from a snapshot + changelog
    for (const version of [12, 10, 6]) {
      const { model: m, appHash } = history[version - 1];
      for (let i = 0; i < 30; i++) {
        const store = STORES[Math.floor(r() * STORES.length)];
        const kv = m.get(store) ?? new Map();
        const present = [...kv.keys()];
        const useExisting = present.length > 0 && r() < 0.5;
        const keyHex = useExisting
          ? present[Math.floor(r() * present.length)]
          : toHex(new Uint8Array([Math.floor(r() * 4), Math.floor(r() * 256), 0xee]));
        const key = fromHex(keyHex);
        const expected = kv.get(keyHex);
        const p = await sc.getProof(store, key, version);
        assert.equal(p.version, version);
        assert.equal(toHex(p.appHash), appHash);
        assert.deepEqual(p.value, expected);
        const [iavlOp, simpleOp] = p.proofOps.ops;
        assert.equal(iavlOp.type, 'ics23:iavl');
        assert.equal(simpleOp.type, 'ics23:simple');
        assert.equal(Buffer.from(iavlOp.key, 'base64').toString('hex'), keyHex);
        assert.equal(Buffer.from(simpleOp.key, 'base64').toString(), store);
        const keyProof = decodeOp(iavlOp.data);
        const rootProof = decodeOp(simpleOp.data);
        const storeRoot = rootProof.exist!.value!;
        // the store root is proved in the app hash with the Tendermint simple-Merkle spec
        assert.ok(verifyMembership(rootProof, tendermintSpec, fromHex(appHash), utf8(store), storeRoot));
        assert.equal(toHex(calculateExistenceRoot(rootProof.exist!)), appHash);
        if (expected) {
          existence++;
          assert.ok(verifyMembership(keyProof, iavlSpec, storeRoot, key, expected));
          assert.equal(toHex(calculateExistenceRoot(keyProof.exist!)), toHex(storeRoot));
          // tampered value, tampered key, wrong root
          assert.equal(
            verifyMembership(keyProof, iavlSpec, storeRoot, key, new Uint8Array([...expected, 1])),
            false,
          );
          assert.equal(
            verifyMembership(keyProof, iavlSpec, storeRoot, new Uint8Array([...key, 0]), expected),
            false,
          );
          assert.equal(verifyMembership(keyProof, iavlSpec, new Uint8Array(32), key, expected), false);
          // a flipped byte in a sibling hash of the path
          const bad = decodeOp(iavlOp.data);
          assert.ok(bad.exist!.path!.length > 0);
          const step = bad.exist!.path![0];
          const target = step.suffix && step.suffix.length > 0 ? step.suffix : step.prefix!;
          target[target.length - 1] ^= 1;
          assert.equal(verifyMembership(bad, iavlSpec, storeRoot, key, expected), false);
        } else {
          absence++;
          assert.ok(keyProof.nonexist);
          assert.ok(verifyNonMembership(keyProof, iavlSpec, storeRoot, key));
          // the same proof must not prove the absence of a neighbour that exists
          const neighbour = keyProof.nonexist!.left?.key ?? keyProof.nonexist!.right?.key;
          if (neighbour) assert.equal(verifyNonMembership(keyProof, iavlSpec, storeRoot, neighbour), false);
        }
        // a proof for another store's root does not verify against this app hash
        assert.equal(
          verifyMembership(rootProof, tendermintSpec, fromHex(appHash), utf8(store), new Uint8Array(32)),
          false,
        );
      }
    }
    assert.ok(existence >= 10 && absence >= 10, `existence ${existence}, absence ${absence}`);

    // while the next block is being built, the committed version is still provable
    const { model: m12, appHash: h12 } = history[11];
    const [hex, value] = [...m12.get('bank')!][0];
    sc.applyChangeSets(13, [{ store: 'bank', pairs: [{ key: fromHex(hex), value: Uint8Array.of(0xab) }] }]);
    assert.deepEqual(sc.getWorking('bank', fromHex(hex)), Uint8Array.of(0xab));
    const during = await sc.getProof('bank', fromHex(hex));
    assert.equal(during.version, 12);
    assert.deepEqual(during.value, value);
    const rootProof = decodeOp(during.proofOps.ops[1].data);
    assert.ok(
      verifyMembership(rootProof, tendermintSpec, fromHex(h12), utf8('bank'), rootProof.exist!.value!),
    );
    assert.ok(
      verifyMembership(
        decodeOp(during.proofOps.ops[0].data),
        iavlSpec,
        rootProof.exist!.value!,
        fromHex(hex),
        value,
      ),
    );
    await sc.close();
  } finally {
    cleanup();
  }
});
