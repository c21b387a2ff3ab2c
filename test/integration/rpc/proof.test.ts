/**
 * eth_getProof over HTTP: on a `state_commitment = "iavl"` chain every returned ProofOps verifies
 * with @confio/ics23 (slot in the `evm` store, store root in the commit info) against the app hash of
 * the state after the requested block — the next block header's app hash; absent slots are proved
 * absent. Errors: key count and format, heights, and the flatkv refusal naming state_commitment.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  calculateExistenceRoot,
  iavlSpec,
  ics23,
  tendermintSpec,
  verifyMembership,
  verifyNonMembership,
} from '@confio/ics23';
import { AbiCoder, getCreateAddress, Interface, keccak256 } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { makeHome, startNode, until } from '../../helpers/node.ts';
import { error, GWEI, hex, result, rpcNode, sendAndWait, wallets } from './rpc-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const abi = AbiCoder.defaultAbiCoder();
const b64 = (s: string) => Uint8Array.from(Buffer.from(s, 'base64'));
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const balanceSlot = (owner: string) => keccak256(abi.encode(['address', 'uint256'], [owner, 3]));
/** The evm store key of a slot: 0x03 ‖ address ‖ slot (app/store-keys.ts). */
const storeKey = (address: string, slot: string) => Uint8Array.from([3, ...bytes(address), ...bytes(slot)]);

type ProofOps = { ops: { type: string; key: string; data: string }[] };

/** Verifies one storage proof against `appHash`; `value` undefined: must prove absence. */
function verify(ops: ProofOps, key: Uint8Array, value: Uint8Array | undefined, appHash: Uint8Array): void {
  assert.deepEqual(
    ops.ops.map((o) => o.type),
    ['ics23:iavl', 'ics23:simple'],
  );
  assert.deepEqual(b64(ops.ops[0].key), key);
  assert.equal(Buffer.from(b64(ops.ops[1].key)).toString(), 'evm');
  const keyProof = ics23.CommitmentProof.decode(b64(ops.ops[0].data));
  const rootProof = ics23.CommitmentProof.decode(b64(ops.ops[1].data));
  const storeRoot = rootProof.exist!.value!;
  assert.ok(verifyMembership(rootProof, tendermintSpec, appHash, Buffer.from('evm'), storeRoot));
  assert.deepEqual(calculateExistenceRoot(rootProof.exist!), appHash);
  if (value) {
    assert.ok(verifyMembership(keyProof, iavlSpec, storeRoot, key, value));
    assert.equal(verifyMembership(keyProof, iavlSpec, storeRoot, key, Uint8Array.from([...value, 0])), false);
  } else {
    assert.ok(verifyNonMembership(keyProof, iavlSpec, storeRoot, key));
  }
}

test('eth_getProof on an iavl chain: values and ICS23 proofs against the app hash', async (t) => {
  const node = await startNode(makeHome(t, 'iavl'), { 'evm.http_port': '0' });
  t.after(() => node.stop());
  const url = node.modules.evmHttp!.url;
  const [a, b] = [wallets[0].address, wallets[1].address];
  const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI };
  const deploy = await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 0,
    gasLimit: 2_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
    ...fee,
  });
  const tokenAddress = getCreateAddress({ from: a, nonce: 0 }).toLowerCase();
  const move = await sendAndWait(url, wallets[0], {
    type: 2,
    nonce: 1,
    to: tokenAddress,
    data: token.encodeFunctionData('transfer', [b, 10n]),
    gasLimit: 100_000,
    ...fee,
  });
  const [hDeploy, hMove] = [deploy, move].map((x) => Number(x.receipt.blockNumber));
  const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0');
  const slots = [balanceSlot(a), balanceSlot(b), word(2n), word(99n)];
  // the state after block h is committed in block h + 1's header
  const appHashAfter = async (h: number) => {
    await until(() => node.modules.chain.latestHeight > h);
    return bytes((await result(url, 'eth_getBlockByNumber', [hex(h + 1), false])).stateRoot);
  };

  for (const [height, expected] of [
    [hMove, [990n, 10n, 1000n, 0n]],
    [hDeploy, [1000n, 0n, 1000n, 0n]],
  ] as const) {
    const r = await result(url, 'eth_getProof', [tokenAddress, slots, hex(height)]);
    assert.deepEqual(Object.keys(r), ['address', 'hexValues', 'storageProof']);
    assert.equal(r.address, tokenAddress);
    assert.deepEqual(
      r.hexValues,
      expected.map((v) => (v === 0n ? '0x' : word(v))),
    );
    const appHash = await appHashAfter(height);
    slots.forEach((slot, i) =>
      verify(
        r.storageProof[i],
        storeKey(tokenAddress, slot),
        expected[i] ? bytes(word(expected[i])) : undefined,
        appHash,
      ),
    );
  }

  await t.test('tags and hashes name the same state; a short key is left-padded', async () => {
    // blocks keep coming: the proof for `latest` is the one for the height latest named then
    let latest: number;
    let r: { hexValues: string[]; storageProof: ProofOps[] };
    do {
      latest = Number(await result(url, 'eth_blockNumber'));
      r = await result(url, 'eth_getProof', [tokenAddress, ['0x2'], 'latest']);
    } while (Number(await result(url, 'eth_blockNumber')) !== latest);
    assert.deepEqual(
      r.storageProof,
      (await result(url, 'eth_getProof', [tokenAddress, ['0x2'], hex(latest)])).storageProof,
    );
    assert.deepEqual(r.hexValues, [word(1000n)]);
    verify(
      r.storageProof[0],
      storeKey(tokenAddress, word(2n)),
      bytes(word(1000n)),
      await appHashAfter(latest),
    );
    const byHash = await result(url, 'eth_getProof', [tokenAddress, [slots[1]], move.receipt.blockHash]);
    assert.deepEqual(byHash.hexValues, [word(10n)]);
    // no keys: just the address
    assert.deepEqual(await result(url, 'eth_getProof', [a, [], 'latest']), {
      address: a.toLowerCase(),
      hexValues: [],
      storageProof: [],
    });
  });

  await t.test(
    'a height State Commit no longer keeps in memory is rebuilt (snapshot + changelog)',
    async () => {
      // 16 versions stay in memory; older ones are replayed from the changelog
      await until(() => node.modules.chain.latestHeight > hMove + 40);
      const r = await result(url, 'eth_getProof', [tokenAddress, [slots[0]], hex(hMove)]);
      assert.deepEqual(r.hexValues, [word(990n)]);
      verify(
        r.storageProof[0],
        storeKey(tokenAddress, slots[0]),
        bytes(word(990n)),
        await appHashAfter(hMove),
      );
    },
  );

  await t.test('errors: key count and format, future heights', async () => {
    const tooMany = Array.from({ length: 1025 }, (_, i) => hex(i));
    assert.deepEqual(await error(url, 'eth_getProof', [tokenAddress, tooMany, 'latest']), {
      code: -32602,
      message: 'invalid argument 1: too many storage keys: 1025, at most 1024',
    });
    assert.equal(
      (await result(url, 'eth_getProof', [tokenAddress, tooMany.slice(1), 'latest'])).hexValues.length,
      1024,
    );
    assert.deepEqual(await error(url, 'eth_getProof', [tokenAddress, ['0xzz'], 'latest']), {
      code: -32602,
      message: 'invalid argument 1: storage key 0: invalid hex string',
    });
    assert.deepEqual(await error(url, 'eth_getProof', [tokenAddress, '0x01', 'latest']), {
      code: -32602,
      message: 'invalid argument 1: storage keys must be an array of hex strings',
    });
    assert.deepEqual(await error(url, 'eth_getProof', [tokenAddress, []]), {
      code: -32602,
      message: 'missing value for required argument 2',
    });
    assert.deepEqual(await error(url, 'eth_getProof', [tokenAddress, [], hex(10_000_000)]), {
      code: -32000,
      message: 'header not found',
    });
  });
});

test('eth_getProof at a height State Commit can no longer rebuild: -32000 naming the oldest', async (t) => {
  // a snapshot every 5 blocks, none kept beyond the newest: old heights cannot be rebuilt
  const node = await startNode(makeHome(t, 'iavl'), {
    'evm.http_port': '0',
    'state-commit.sc-snapshot-interval': '5',
    'state-commit.sc-keep-recent': '0',
  });
  t.after(() => node.stop());
  await until(() => node.modules.chain.latestHeight > 40);
  const e = await error(node.modules.evmHttp!.url, 'eth_getProof', [wallets[0].address, ['0x0'], '0x1']);
  assert.equal(e.code, -32000);
  assert.match(
    e.message,
    /^proofs at height 1 are not available: State Commit no longer holds that state; it keeps the most recent heights and rebuilds older ones only from its snapshots, the oldest of which is at height \d+$/,
  );
  const oldest = Number(/height (\d+)$/.exec(e.message)![1]);
  assert.ok(oldest > 30);
});

test('eth_getProof on a flatkv chain: -32000 naming state_commitment', async (t) => {
  const { url } = await rpcNode(t);
  const e = await error(url, 'eth_getProof', [wallets[0].address, ['0x0'], 'latest']);
  assert.equal(e.code, -32000);
  assert.match(e.message, /state_commitment/);
  assert.match(e.message, /"iavl"/);
  // even without keys: nothing on this chain can be proved
  assert.deepEqual(await error(url, 'eth_getProof', [wallets[0].address, [], 'latest']), e);
});
