/**
 * The Parity rendering (parity.ts) and the trace_* tracer (parity-tracer.ts): its traces are anvil's
 * `trace_transaction` of the scenario (parity-trace_transaction.json, top frame's gas included), the
 * flatCallTracer renders the same tree, and the state diff names exactly what changed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCreate2Address, getCreateAddress, keccak256 } from 'ethers';
import { ParityTracer, type ParityTraceType } from '../../../../src/execution/tracing/index.ts';
import { artifacts, devWallets } from '../../../helpers/dev-chain.ts';
import { load, traceScenario } from './run-scenario.ts';
import { addresses } from './scenario.ts';

const types = (...t: ParityTraceType[]) => new Set<ParityTraceType>(t);
const lower = (a: string) => a.toLowerCase();

test("Parity style with precompiles is the reference node's trace_transaction, top frame's gas included", async () => {
  const ours = await traceScenario((ctx) => new ParityTracer(types('trace'), ctx, true));
  const ref = load('parity-trace_transaction.json');
  for (const name of Object.keys(ref)) {
    const got = (ours[name] as ParityTracer).localizedTraces();
    const want = ref[name].map((f: any) => ({ ...f, blockHash: null }));
    assert.deepStrictEqual(got, want, name);
  }
});

test('Parity style leaves precompile calls out (as reth) and agrees with flatCallTracer on every other frame', async () => {
  const parity = await traceScenario((ctx) => new ParityTracer(types('trace'), ctx));
  const flat = await traceScenario({ tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } });
  for (const name of Object.keys(flat)) {
    const ours = (parity[name] as ParityTracer).localizedTraces();
    assert.equal(ours.length, flat[name].length, name);
    ours.forEach((t, i) => {
      const f = flat[name][i];
      assert.deepStrictEqual(t.action.to, f.action.to, `${name} ${i}`);
      assert.deepStrictEqual(t.traceAddress, f.traceAddress, `${name} ${i}`);
      assert.equal(t.subtraces, f.subtraces, `${name} ${i}`);
      assert.equal(t.type, f.type, `${name} ${i}`);
      if (i > 0) assert.deepStrictEqual(t.action, f.action, `${name} ${i}`);
      // the styles differ only in a failed frame's result (null here, absent in geth's)
      if (f.result) assert.deepStrictEqual(t.result, i === 0 ? t.result : f.result);
      else assert.equal(t.result, null, `${name} ${i}`);
    });
  }
  const nested = (parity.nested as ParityTracer).localizedTraces();
  assert.ok(!nested.some((t) => t.action.to === '0x' + '00'.repeat(19) + '02'), 'sha256 left out');
  assert.equal(nested[0].subtraces, 4);
});

test('trace types: trace empty unless asked, stateDiff null unless asked, output is the return data', async () => {
  const r = await traceScenario((ctx) => new ParityTracer(types('stateDiff'), ctx), ['nested', 'revert']);
  const nested = r.nested.result();
  assert.deepStrictEqual(nested.trace, []);
  assert.equal(nested.vmTrace, null);
  assert.equal(nested.output, '0x' + '5'.padStart(64, '0'));
  assert.ok(nested.stateDiff);
  const revert = r.revert.result();
  // Error(string) "probe failed"
  assert.ok(revert.output.startsWith('0x08c379a0'));
  const t = await traceScenario((ctx) => new ParityTracer(types('trace'), ctx), ['nested']);
  assert.equal(t.nested.result().stateDiff, null);
  assert.equal(t.nested.result().trace.length, 5);
  assert.ok(!('blockHash' in t.nested.result().trace[0]), 'TraceResults traces are not localized');
});

test('stateDiff: changed fields as {"*": {from, to}}, unchanged "=", born accounts "+", destroyed-in-tx accounts left out', async () => {
  const r = await traceScenario((ctx) => new ParityTracer(types('stateDiff'), ctx));
  const sender = lower(devWallets[0].address);
  const probe = lower(addresses.probe);
  const target = lower(addresses.target);
  const word = (n: number) => '0x' + n.toString(16).padStart(64, '0');

  // deploy-target: the contract is born; the sender's nonce and balance change
  const deploy = r['deploy-target'].result().stateDiff;
  const born = deploy[target];
  assert.deepStrictEqual(born.balance, { '+': '0x0' });
  assert.deepStrictEqual(born.nonce, { '+': '0x1' });
  assert.ok('+' in born.code && born.code['+'].length > 100);
  assert.deepStrictEqual(deploy[sender].nonce, { '*': { from: '0x0', to: '0x1' } });
  assert.deepStrictEqual(deploy[sender].code, '=');
  assert.deepStrictEqual(deploy[sender].storage, {});

  // nested: target's slot 0 ← 5 by CALL, the probe's slot 0 ← 6 by DELEGATECALL, 1000 wei to the probe
  const nested = r.nested.result().stateDiff;
  assert.deepStrictEqual(nested[target], {
    balance: '=',
    code: '=',
    nonce: '=',
    storage: { [word(0)]: { '*': { from: word(0), to: word(5) } } },
  });
  assert.deepStrictEqual(nested[probe].balance, { '*': { from: '0x0', to: '0x3e8' } });
  assert.deepStrictEqual(nested[probe].storage, { [word(0)]: { '*': { from: word(0), to: word(6) } } });
  assert.ok(!('0x' + '00'.repeat(19) + '02' in nested), 'a called precompile did not change');

  // create-selfdestruct: the CREATE child is born with 1 wei; the CREATE2 child is created and
  // destroyed in the transaction, so it is not listed; its 2 wei went back to the sender
  const cs = r['create-selfdestruct'].result().stateDiff;
  const childCode = artifacts.TraceChild.deployedBytecode ?? undefined;
  const child1 = lower(getCreateAddress({ from: addresses.probe, nonce: 1 }));
  assert.deepStrictEqual(cs[child1].balance, { '+': '0x1' });
  assert.deepStrictEqual(cs[child1].nonce, { '+': '0x1' });
  if (childCode) assert.deepStrictEqual(cs[child1].code, { '+': childCode });
  const initCode = artifacts.TraceChild.bytecode;
  const child2 = lower(getCreate2Address(addresses.probe, '0x' + '11'.repeat(32), keccak256(initCode)));
  assert.ok(!(child2 in cs), 'created and destroyed in the transaction');
  assert.deepStrictEqual(cs[probe].nonce, { '*': { from: '0x1', to: '0x3' } });

  // refund: slot 0 back to zero
  const refund = r.refund.result().stateDiff;
  assert.deepStrictEqual(refund[target].storage, { [word(0)]: { '*': { from: word(5), to: word(0) } } });

  // transfer: the recipient's balance changes (it existed: a funded dev account)
  const tr = r.transfer.result().stateDiff;
  assert.deepStrictEqual(tr[lower(devWallets[4].address)].balance, {
    '*': {
      from: tr[lower(devWallets[4].address)].balance['*'].from,
      to: '0x' + (BigInt(tr[lower(devWallets[4].address)].balance['*'].from) + 12345n).toString(16),
    },
  });
});
