/**
 * execution/simulate over the dev genesis state: a state source that answers only asynchronously
 * (as the State Store does) gives exactly the results of a synchronous one, each key loaded once;
 * runs leave no trace; creation calls return the runtime code; overrides; the deadline.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Interface, keccak256, parseEther } from 'ethers';
import { createChainCommon } from '../../../../src/execution/chain-config.ts';
import { estimateGas } from '../../../../src/execution/simulation/estimate.ts';
import {
  type AccountOverride,
  type RunResult,
  Simulation,
  SimulationTimeoutError,
  type StateSource,
} from '../../../../src/execution/simulation/simulate.ts';
import { artifacts, CHAIN_ID, devAccounts, devBlockEnv, devState } from '../../../helpers/dev-chain.ts';

const common = createChainCommon({ chainId: CHAIN_ID });
const token = new Interface(artifacts.TestToken.abi);
const bytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const PROBE = new Uint8Array(20).fill(0x77);
const env = devBlockEnv({ height: 5n });

/** The dev genesis state as a synchronous source, and as an asynchronous one that counts loads. */
function sources() {
  const { committed } = devState();
  const id = (s: string, k: Uint8Array) => `${s}:${Buffer.from(k).toString('hex')}`;
  const loads: string[] = [];
  const sync: StateSource = (s, k) => committed.get(id(s, k));
  const async: StateSource = (s, k) => {
    loads.push(id(s, k));
    return new Promise((r) => setImmediate(() => r(committed.get(id(s, k)))));
  };
  return { sync, async, loads };
}

const create = (state: StateSource, stateOverrides: AccountOverride[] = [], timeoutMs = 10_000) =>
  Simulation.create({ common, env, state, gasCap: 10_000_000n, timeoutMs, stateOverrides });

test('an asynchronous source gives the synchronous results; each key is loaded once', async () => {
  const { sync, async, loads } = sources();
  const [alice, bob] = devAccounts;
  const deploy = {
    from: alice.evmAddress,
    data: bytes(artifacts.TestToken.bytecode + token.encodeDeploy(['T', 'T', 5n]).slice(2)),
  };
  const transfer = { from: alice.evmAddress, to: bob.evmAddress, value: parseEther('1') };
  for (const msg of [deploy, transfer]) {
    loads.length = 0;
    const a = await (await create(sync)).run(msg, 3_000_000n);
    const b = await (await create(async)).run(msg, 3_000_000n);
    assert.equal(a.status, 'success');
    assert.deepEqual(b, a);
    assert.ok(loads.length > 0);
    assert.equal(new Set(loads).size, loads.length, 'every key loaded once');
  }
  // a creation call returns the runtime code
  const r = await (await create(async)).run(deploy, 3_000_000n);
  assert.equal(
    r.status === 'success' && '0x' + Buffer.from(r.returnData).toString('hex'),
    artifacts.TestToken.deployedBytecode,
  );
});

test('runs leave no trace: the same simulation runs a value transfer twice identically', async () => {
  const { async } = sources();
  const [alice, bob] = devAccounts;
  const sim = await create(async);
  const before = await sim.balanceOf(bob.evmAddress);
  const msg = { from: alice.evmAddress, to: bob.evmAddress, value: 7n, maxFeePerGas: 2n * 10n ** 9n };
  const first = await sim.run(msg, 21_000n);
  assert.deepEqual(await sim.run(msg, 21_000n), first);
  assert.equal(await sim.balanceOf(bob.evmAddress), before);
  assert.equal(await sim.nonceOf(alice.evmAddress), 0n);
  // the exact estimate of a plain transfer
  assert.deepEqual(await estimateGas(sim, msg), { status: 'success', gas: 21_000n });
});

test('overrides over an asynchronous source: state replaces storage, stateDiff patches it', async () => {
  const { async } = sources();
  // returns SLOAD(0) ‖ SLOAD(1)
  const code = bytes('600054600052' + '600154602052' + '60406000f3');
  const slot = (n: number) => bytes(n.toString(16).padStart(64, '0'));
  const base: AccountOverride = { address: PROBE, code, stateDiff: [{ slot: slot(0), value: slot(5) }] };
  const run = async (o: AccountOverride[]) => {
    const r = await (await create(async, o)).run({ to: PROBE }, 100_000n);
    assert.equal(r.status, 'success');
    return Buffer.from(r.status === 'success' ? r.returnData : []).toString('hex');
  };
  assert.equal(await run([base]), '5'.padStart(64, '0') + '0'.repeat(64));
  // a later `state` of the same account drops the earlier slots
  assert.equal(
    await run([base, { address: PROBE, state: [{ slot: slot(1), value: slot(6) }] }]),
    '0'.repeat(64) + '6'.padStart(64, '0'),
  );
  await assert.rejects(
    create(async, [{ address: PROBE, state: [], stateDiff: [] }]),
    /has both 'state' and 'stateDiff'/,
  );
});

test('the deadline aborts a spinning call, in geth wording', async () => {
  const { sync } = sources();
  const sim = await create(sync, [{ address: PROBE, code: bytes('5b600056') }], 50);
  const t0 = performance.now();
  await assert.rejects(sim.run({ to: PROBE }, 10_000_000n), (err: unknown) => {
    assert.ok(err instanceof SimulationTimeoutError);
    assert.equal(err.message, 'execution aborted (timeout = 50ms)');
    return true;
  });
  assert.ok(performance.now() - t0 < 1000);
  // 0 is no limit (geth): the spin ends by running out of gas
  const unlimited = await create(sync, [{ address: PROBE, code: bytes('5b600056') }], 0);
  const r = await unlimited.run({ to: PROBE }, 100_000n);
  assert.deepEqual([r.status, r.status === 'failure' && r.error], ['failure', 'out of gas']);
  assert.equal(new SimulationTimeoutError(60_000).message, 'execution aborted (timeout = 1m0s)');
  assert.equal(new SimulationTimeoutError(1_500).message, 'execution aborted (timeout = 1.5s)');
});

test('a contract may be the sender (geth skips EIP-3607 for calls); inside the EVM it keeps its code', async () => {
  const { sync } = sources();
  const caller = new Uint8Array(20).fill(0x55);
  const callerCode = bytes('6001600055');
  // returns EXTCODEHASH(CALLER)
  const sim = await create(sync, [
    { address: caller, code: callerCode },
    { address: PROBE, code: bytes('333f600052' + '60206000f3') },
  ]);
  for (let i = 0; i < 2; i++) {
    const r = await sim.run({ from: caller, to: PROBE }, 100_000n);
    assert.equal(r.status, 'success');
    assert.equal(
      '0x' + Buffer.from(r.status === 'success' ? r.returnData : []).toString('hex'),
      keccak256(callerCode),
    );
  }
  assert.equal(await sim.codeSize(caller), callerCode.length);
});

test('block overrides reach the EVM: PREVRANDAO, NUMBER, TIMESTAMP', async () => {
  const { sync } = sources();
  // returns PREVRANDAO ‖ NUMBER ‖ TIMESTAMP
  const probe = bytes('44600052' + '43602052' + '42604052' + '60606000f3');
  const randao = new Uint8Array(32).fill(0xab);
  const sim = await Simulation.create({
    common,
    env,
    state: sync,
    gasCap: 1_000_000n,
    timeoutMs: 10_000,
    stateOverrides: [{ address: PROBE, code: probe }],
    blockOverrides: { prevRandao: randao, number: 77n, time: 1234n },
  });
  const r = await sim.run({ to: PROBE }, 100_000n);
  assert.equal(r.status, 'success');
  const out = Buffer.from(r.status === 'success' ? r.returnData : []).toString('hex');
  assert.equal(
    out,
    'ab'.repeat(32) + (77).toString(16).padStart(64, '0') + (1234).toString(16).padStart(64, '0'),
  );
  // eth_call's direct call sees the same block, and a simulation without overrides its own
  const c = await sim.call({ to: PROBE }, 100_000n);
  assert.equal(Buffer.from(c.status === 'success' ? c.returnData : []).toString('hex'), out);
  const plain = await create(sync, [{ address: PROBE, code: probe }]);
  const d = await plain.call({ to: PROBE }, 100_000n);
  assert.equal(
    Buffer.from(d.status === 'success' ? d.returnData : []).toString('hex'),
    '00'.repeat(32) + (5).toString(16).padStart(64, '0') + env.timestamp.toString(16).padStart(64, '0'),
  );
});

test('a VM reused by the next simulation carries nothing over: state, transient storage, warm slots', async () => {
  const { sync } = sources();
  // TSTORE(0, 1); SSTORE(0, 1); returns TLOAD(0) ‖ SLOAD(0)
  const writer = bytes('60016000' + '5d' + '6001600055' + '60005c600052' + '600054602052' + '60406000f3');
  // returns TLOAD(0) ‖ SLOAD(0)
  const reader = bytes('60005c600052' + '600054602052' + '60406000f3');
  const once = async (code: Uint8Array) => {
    const sim = await create(sync, [{ address: PROBE, code }]);
    try {
      const r = await sim.run({ to: PROBE }, 100_000n);
      assert.equal(r.status, 'success');
      return { out: Buffer.from(r.status === 'success' ? r.returnData : []).toString('hex'), gas: r.gasUsed };
    } finally {
      sim.close();
    }
  };
  const fresh = await once(reader);
  const word = (n: number) => n.toString(16).padStart(64, '0');
  assert.equal((await once(writer)).out, word(1) + word(1));
  // the pooled VM again: no transient value, no storage write, the same (cold) gas
  assert.deepEqual(await once(reader), fresh);
  assert.equal(fresh.out, word(0) + word(0));
  // without an override the address has no code in the next simulation
  const sim = await create(sync);
  assert.equal(await sim.codeSize(PROBE), 0);
  sim.close();
});

test("call() (eth_call's direct EVM call) answers what run() answers, and falls back to run() for priced calls", async () => {
  const { sync } = sources();
  const [alice, bob] = devAccounts;
  const contractSender = new Uint8Array(20).fill(0x55);
  // returns GAS ‖ BALANCE(CALLER) ‖ BALANCE(ADDRESS) ‖ GASPRICE ‖ BASEFEE ‖ ORIGIN, warm/cold costs included
  const probe = bytes(
    '5a600052' + '3331602052' + '3031604052' + '3a606052' + '48608052' + '3260a052' + '60c06000f3',
  );
  // REVERT with Error("no")
  const reverter = bytes(
    '6308c379a060e01b6000526020600452600260245261' + '6e6f' + '60f01b604452' + '60646000fd',
  );
  const overrides = [
    { address: PROBE, code: probe },
    { address: bob.evmAddress, code: reverter },
    { address: contractSender, code: bytes('00'), balance: 5n },
  ];
  const calls = [
    { to: PROBE },
    { from: alice.evmAddress, to: PROBE, value: 3n, data: bytes('00ff00') },
    { from: contractSender, to: PROBE, value: 5n },
    {
      from: alice.evmAddress,
      to: PROBE,
      accessList: [{ address: PROBE, storageKeys: [new Uint8Array(32)] }],
    },
    { to: bob.evmAddress },
    // priced: run() itself
    { from: alice.evmAddress, to: PROBE, maxFeePerGas: 2n * 10n ** 9n },
  ];
  const statuses: string[] = [];
  for (const msg of calls) {
    const a = await (await create(sync, overrides)).run(msg, 200_000n);
    const b = await (await create(sync, overrides)).call(msg, 200_000n);
    statuses.push(b.status);
    assert.equal(
      b.status,
      a.status,
      JSON.stringify(msg, (_, v) => (typeof v === 'bigint' ? `${v}` : v)),
    );
    assert.deepEqual(
      b.status === 'failure' ? b.error : b.returnData,
      a.status === 'failure' ? a.error : a.returnData,
    );
  }
  assert.deepEqual(statuses, ['success', 'success', 'success', 'success', 'revert', 'success']);
  // the same refusals
  const poor = await create(sync, overrides);
  await assert.rejects(poor.call({ from: PROBE, to: PROBE, value: 1n }, 100_000n), /insufficient funds/);
  await assert.rejects(poor.call({ to: PROBE, data: new Uint8Array(100) }, 21_000n), /intrinsic gas too low/);
});

test('eth_call runs: the sender nonce bump and value moves take effect in the call, nothing outlives it', async () => {
  const { sync } = sources();
  const [alice] = devAccounts;
  // returns EXTCODEHASH(CALLER) ‖ BALANCE(ADDRESS)
  const code = bytes('333f600052' + '3031602052' + '60406000f3');
  const sim = await create(sync, [{ address: PROBE, code }]);
  const fresh = new Uint8Array(20).fill(0x55);
  const word = (r: RunResult) => Buffer.from(r.status === 'success' ? r.returnData : []).toString('hex');
  const EMPTY_CODE_HASH = 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470';
  // a sender without an account exists once its nonce is bumped, as runTx would have it
  const first = await sim.call({ from: fresh, to: PROBE }, 100_000n);
  assert.equal(word(first), EMPTY_CODE_HASH + '0'.repeat(64));
  const paid = await sim.call({ from: alice.evmAddress, to: PROBE, value: 5n }, 100_000n);
  assert.equal(word(paid), EMPTY_CODE_HASH + '5'.padStart(64, '0'));
  // neither call left anything behind
  assert.deepEqual(await sim.call({ from: fresh, to: PROBE }, 100_000n), first);
  assert.equal(await sim.balanceOf(PROBE), 0n);
  assert.equal(await sim.nonceOf(alice.evmAddress), 0n);
  assert.equal(await sim.nonceOf(fresh), 0n);
});
