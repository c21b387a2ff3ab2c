/**
 * Tracer behaviour beyond the reference files: struct logger options as projections of the default
 * output, failure shapes, tracer-name and config errors, abort and deadline, no EVM listeners for
 * untraced execution, and debug_traceCall's tracer on a Simulation run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Interface } from 'ethers';
import { Bank } from '../../../../src/app/bank.ts';
import { Evm, FEE_COLLECTOR_ADDRESS } from '../../../../src/app/evm.ts';
import { BlockExecutor, isRejection } from '../../../../src/execution/block-executor.ts';
import { createChainCommon } from '../../../../src/execution/chain-config.ts';
import { Simulation } from '../../../../src/execution/simulation/simulate.ts';
import {
  createTracer,
  TraceDeadline,
  TRACER_NAMES,
  TraceTimeoutError,
} from '../../../../src/execution/tracing/index.ts';
import { decodeEthTransaction } from '../../../../src/execution/transactions.ts';
import { ChainError, type ErrorCode } from '../../../../src/util/errors.ts';
import {
  artifacts,
  CHAIN_ID,
  devAccounts,
  devState,
  devWallets,
  signed,
} from '../../../helpers/dev-chain.ts';
import { traceScenario } from './run-scenario.ts';
import { scenario } from './scenario.ts';

const common = createChainCommon({ chainId: CHAIN_ID });
const env = (height: bigint) => ({
  height,
  timestamp: 1_800_000_000n,
  gasLimit: 30_000_000n,
  baseFee: 0n,
  coinbase: FEE_COLLECTOR_ADDRESS,
  parentAppHash: new Uint8Array(32),
  blockHash: () => undefined,
});

/** The scenario's transactions before `name` applied to a fresh state; the executor for `name`. */
async function upTo(name: string) {
  const { overlay } = devState();
  const txs = await scenario();
  const i = txs.findIndex((t) => t.name === name);
  for (const t of txs.slice(0, i)) {
    const r = await (
      await BlockExecutor.create(common, env(1n), overlay)
    ).execute(decodeEthTransaction(t.raw, common));
    assert.ok(!isRejection(r));
  }
  const ex = await BlockExecutor.create(common, env(BigInt(i + 1)), overlay);
  return { ex, overlay, tx: decodeEthTransaction(txs[i].raw, common) };
}

const events = (ex: BlockExecutor) => (ex as unknown as { vm: { evm: { events: any } } }).vm.evm.events;

test('struct logger: disableStack, disableStorage and limit are projections of the default output', async () => {
  const names = ['nested', 'revert', 'eip7702', 'transient'];
  const full = await traceScenario({}, names);
  const limited = await traceScenario({ disableStack: true, disableStorage: true, limit: 40 }, names);
  for (const name of names) {
    const want = full[name].structLogs.slice(0, 40).map(({ stack: _s, storage: _t, ...rest }: any) => rest);
    assert.deepStrictEqual(limited[name].structLogs, want, name);
    assert.deepStrictEqual({ ...limited[name], structLogs: [] }, { ...full[name], structLogs: [] }, name);
    assert.ok(
      full[name].structLogs.every(
        (l: any) => Array.isArray(l.stack) && !('memory' in l) && !('returnData' in l),
      ),
    );
  }
  assert.ok(
    full.nested.structLogs.some((l: any) => l.op === 'SSTORE' && l.storage),
    'storage shown on SSTORE',
  );
  assert.ok(full.nested.structLogs.every((l: any) => !l.storage || l.op === 'SLOAD' || l.op === 'SSTORE'));
  assert.ok(
    full.transient.structLogs.some((l: any) => l.op === 'TSTORE') &&
      full.transient.structLogs.some((l: any) => l.op === 'TLOAD'),
  );
});

test('struct logger: out of gas and revert render as geth prints them', async () => {
  const r = await traceScenario({}, ['out-of-gas', 'revert']);
  const oog = r['out-of-gas'];
  assert.equal(oog.failed, true);
  assert.equal(oog.gas, 60000);
  assert.equal(oog.returnValue, '', 'no return value for a failure other than revert');
  const last = oog.structLogs[oog.structLogs.length - 1];
  assert.equal(last.op, 'SSTORE');
  assert.equal(last.error, 'out of gas: not enough gas for reentrancy sentry');
  assert.deepStrictEqual(
    Object.keys(last).slice(0, 6),
    ['pc', 'op', 'gas', 'gasCost', 'depth', 'error'],
    'geth field order',
  );
  assert.equal(oog.structLogs.filter((l: any) => l.error).length, 1);
  const rev = r.revert;
  assert.equal(rev.failed, true);
  const reason = new Interface(['function Error(string)'])
    .encodeFunctionData('Error', ['probe failed'])
    .slice(2);
  assert.equal(rev.returnValue, reason, 'revert data, hex without 0x (geth 1.14)');
  assert.equal(rev.structLogs[rev.structLogs.length - 1].op, 'REVERT');
  assert.ok(
    !('error' in rev.structLogs[rev.structLogs.length - 1]),
    'geth logs REVERT itself without an error',
  );
});

test('callTracer: reverted sub-call with its reason, DELEGATECALL value, STATICCALL without value, SELFDESTRUCT frame', async () => {
  const r = await traceScenario({ tracer: 'callTracer' }, ['nested', 'create-selfdestruct', 'out-of-gas']);
  const [store, current, delegate, fail, sha] = r.nested.calls;
  assert.deepStrictEqual(
    r.nested.calls.map((c: any) => c.type),
    ['CALL', 'STATICCALL', 'DELEGATECALL', 'STATICCALL', 'STATICCALL'],
    'a pure function is called with STATICCALL',
  );
  assert.equal(store.value, '0x0');
  assert.ok(!('value' in current), 'STATICCALL has no value');
  assert.equal(delegate.value, '0x3e8', "DELEGATECALL carries the caller's value");
  assert.equal(fail.error, 'execution reverted');
  assert.equal(fail.revertReason, 'inner');
  assert.equal(sha.to, '0x0000000000000000000000000000000000000002', 'precompile calls are frames');
  const [create, create2, destroy] = r['create-selfdestruct'].calls;
  assert.equal(create.type, 'CREATE');
  assert.equal(create2.type, 'CREATE2');
  assert.equal(destroy.calls[0].type, 'SELFDESTRUCT');
  assert.equal(destroy.calls[0].value, '0x2');
  assert.equal(destroy.calls[0].to, '0x' + Buffer.from(devAccounts[0].evmAddress).toString('hex'));
  assert.equal(r['out-of-gas'].error, 'out of gas: not enough gas for reentrancy sentry');
  assert.equal(r['out-of-gas'].gasUsed, '0xea60');
});

test('flatCallTracer: precompile calls dropped by default, trace addresses, transaction fields from the context', async () => {
  const r = await traceScenario({ tracer: 'flatCallTracer' }, ['nested', 'create-selfdestruct']);
  assert.deepStrictEqual(
    r.nested.map((f: any) => f.traceAddress),
    [[], [0], [1], [2], [3]],
    'the sha256 precompile call is not listed',
  );
  assert.equal(r.nested[0].subtraces, 4);
  assert.equal(r.nested[0].blockHash, null);
  assert.equal(r.nested[0].blockNumber, 5);
  assert.match(r.nested[0].transactionHash, /^0x[0-9a-f]{64}$/);
  assert.equal(r.nested[2].action.value, '0x0', 'a static call has value 0 in the flat form');
  assert.equal(r.nested[4].error, 'execution reverted');
  assert.ok(r.nested[4].result, 'a reverted frame keeps its result');
  const suicide = r['create-selfdestruct'].find((f: any) => f.type === 'suicide');
  assert.deepStrictEqual(Object.keys(suicide.action), ['address', 'balance', 'refundAddress']);
  const creates = r['create-selfdestruct'].filter((f: any) => f.type === 'create');
  assert.deepStrictEqual(
    creates.map((f: any) => f.action.creationMethod),
    ['create', 'create2'],
  );
});

test('unknown tracers (JavaScript included) and malformed tracer configs are named errors', () => {
  const ctx = { blockHeight: 1n };
  for (const name of ['jsTracer', '{ step: function() {} }', 'callTracerX']) {
    assert.throws(
      () => createTracer({ tracer: name }, ctx),
      (e: unknown) =>
        e instanceof ChainError &&
        e.code === 'TRACE_UNKNOWN_TRACER' &&
        TRACER_NAMES.every((n) => e.message.includes(n)),
    );
  }
  assert.throws(
    () => createTracer({ tracer: 'callTracer', tracerConfig: { onlyTopCall: 'yes' } }, ctx),
    (e: unknown) =>
      e instanceof ChainError && e.code === 'TRACE_INVALID_CONFIG' && e.message.includes('onlyTopCall'),
  );
  assert.throws(
    () => createTracer({ tracer: 'prestateTracer', tracerConfig: { diffMode: 1 } }, ctx),
    (e: unknown) =>
      e instanceof ChainError && e.code === 'TRACE_INVALID_CONFIG' && e.message.includes('diffMode'),
  );
  // geth ignores unknown keys, and a null config
  createTracer({ tracer: 'callTracer', tracerConfig: { somethingElse: true } }, ctx);
  createTracer({ tracer: 'prestateTracer', tracerConfig: null as never }, ctx);
  assert.throws(
    () => createTracer({ tracer: 'callTracer', tracerConfig: [] as never }, ctx),
    (e: unknown) => e instanceof ChainError && e.code === 'TRACE_INVALID_CONFIG',
  );
});

test('untraced execution registers no EVM listeners; a traced one removes its own', async () => {
  const { ex, tx } = await upTo('nested');
  const ev = events(ex);
  const names = ['step', 'beforeMessage', 'afterMessage'];
  const on = ev.on;
  ev.on = () => assert.fail('a listener was registered for an untraced transaction');
  const r = await ex.execute(tx);
  ev.on = on;
  assert.ok(!isRejection(r) && r.status === 1);
  for (const n of names) assert.equal(ev.listenerCount(n), 0);

  const again = await upTo('nested');
  const tracer = createTracer({ tracer: 'callTracer' }, { blockHeight: 5n });
  await again.ex.execute(again.tx, 0n, { tracer });
  for (const n of names) assert.equal(events(again.ex).listenerCount(n), 0);
  await assert.rejects(again.ex.execute(again.tx, 0n, { tracer }), /attached twice/, 'single use');
});

test('abort() and an expired deadline stop the run with their error; the transaction leaves no state', async () => {
  const { ex, tx, overlay } = await upTo('out-of-gas');
  const evm = new Evm(overlay);
  const nonce = evm.nonce(devAccounts[0].evmAddress);
  const aborted = createTracer({}, { blockHeight: 7n });
  // a code the node never raises (ChainError codes are a closed union): the reason passes through as given
  aborted.abort(new ChainError('TRACE_ABORTED' as ErrorCode, 'client went away'));
  await assert.rejects(ex.execute(tx, 0n, { tracer: aborted }), /client went away/);
  assert.equal(evm.nonce(devAccounts[0].evmAddress), nonce);

  const deadline = new TraceDeadline(1);
  const start = performance.now();
  while (performance.now() - start < 5);
  const late = createTracer({}, { blockHeight: 7n, deadline });
  await assert.rejects(
    ex.execute(tx, 0n, { tracer: late }),
    (e: unknown) => e instanceof TraceTimeoutError && (e as Error).message === 'execution timeout',
  );
  assert.equal(evm.nonce(devAccounts[0].evmAddress), nonce);
  for (const n of ['step', 'beforeMessage', 'afterMessage']) assert.equal(events(ex).listenerCount(n), 0);
  const ok = await ex.execute(tx);
  assert.ok(!isRejection(ok) && ok.status === 0, 'the executor still runs the transaction afterwards');
});

test('debug_traceCall: a Simulation run takes a tracer; the call is undone', async () => {
  const { committed } = devState();
  const id = (s: string, k: Uint8Array) => `${s}:${Buffer.from(k).toString('hex')}`;
  const sim = await Simulation.create({
    common,
    env: { ...env(3n), baseFee: 10n ** 9n },
    state: (s, k) => committed.get(id(s, k)),
    gasCap: 10_000_000n,
    timeoutMs: 10_000,
  });
  try {
    const from = devAccounts[0].evmAddress;
    const data = Uint8Array.from(Buffer.from(artifacts.TraceTarget.bytecode.slice(2), 'hex'));
    const call = createTracer({ tracer: 'callTracer' }, { blockHeight: 3n });
    const res = await sim.run({ from, data }, 1_000_000n, false, { tracer: call });
    assert.equal(res.status, 'success');
    const frame = call.result() as any;
    assert.equal(frame.type, 'CREATE');
    assert.equal(frame.gas, '0xf4240');
    assert.equal(frame.gasUsed, '0x' + res.gasUsed.toString(16));
    assert.match(frame.to, /^0x[0-9a-f]{40}$/);
    const pre = createTracer(
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      { blockHeight: 3n },
    );
    await sim.run({ from, data }, 1_000_000n, false, { tracer: pre });
    const diff = pre.result() as any;
    assert.equal(
      diff.post[frame.to].code,
      '0x' + Buffer.from(res.status === 'success' ? res.returnData : []).toString('hex'),
    );
    assert.equal(await sim.codeSize(Uint8Array.from(Buffer.from(frame.to.slice(2), 'hex'))), 0, 'undone');
    const plain = await sim.run({ from, data }, 1_000_000n);
    assert.equal(plain.gasUsed, res.gasUsed, 'tracing does not change gas');
  } finally {
    sim.close();
  }
});

test('prestateTracer reads balances as eth_getBalance does: bank wei, first-tx association, the whole fee to the fee collector', async () => {
  const { overlay } = devState({ associate: false });
  const ex = await BlockExecutor.create(common, { ...env(1n), baseFee: 10n ** 9n }, overlay);
  const evm = new Evm(overlay);
  const bank = new Bank(overlay);
  const [alice, bob] = devAccounts;
  const balance = (a: Uint8Array) => bank.wei(evm.balanceAddressOf(a));
  const hex = (a: Uint8Array) => '0x' + Buffer.from(a).toString('hex');
  const before = {
    alice: balance(alice.evmAddress),
    bob: balance(bob.evmAddress),
    fees: balance(FEE_COLLECTOR_ADDRESS),
  };
  const raw = await signed(devWallets[0], {
    type: 2,
    to: hex(bob.evmAddress),
    value: 777n,
    nonce: 0,
    gasLimit: 21_000,
    maxFeePerGas: 3n * 10n ** 9n,
    maxPriorityFeePerGas: 10n ** 9n,
  });
  const tracer = createTracer(
    { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
    { blockHeight: 1n },
  );
  const r = await ex.execute(decodeEthTransaction(raw, common), 0n, { tracer });
  assert.ok(!isRejection(r) && r.status === 1);
  const { pre, post } = tracer.result() as any;
  const q = (v: bigint) => '0x' + v.toString(16);
  assert.equal(
    pre[hex(alice.evmAddress)].balance,
    q(before.alice),
    "the sender's pre balance as eth_getBalance showed it",
  );
  assert.equal(
    post[hex(alice.evmAddress)].balance,
    q(balance(alice.evmAddress)),
    'post balance after the association',
  );
  assert.equal(post[hex(bob.evmAddress)].balance, q(before.bob + 777n));
  const fee = r.gasUsed * r.effectiveGasPrice;
  assert.equal(
    post[hex(FEE_COLLECTOR_ADDRESS)].balance,
    q(before.fees + fee),
    'base fee and tip both reach the fee collector',
  );
  assert.equal(post[hex(alice.evmAddress)].nonce, 1);
});
