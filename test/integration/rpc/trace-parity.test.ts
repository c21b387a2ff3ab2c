/**
 * trace_* end to end over an in-process node (lmdb stores, HTTP server): every method, its errors
 * and limits, and the agreement of trace_transaction with debug_traceTransaction's flatCallTracer
 * and callTracer for a nested-call tx (a contract calling another, a caught revert inside, a
 * DELEGATECALL and a precompile), a reverting tx, CREATE + CREATE2 + self-destruct, and a value
 * transfer. The field formats are the unit tests' subject (test/unit/execution/tracing/parity.test.ts,
 * against a reference node); here the methods are shown to serve them and to agree with each other.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCreateAddress, Interface, type TransactionRequest } from 'ethers';
import { artifacts } from '../../helpers/dev-chain.ts';
import { until } from '../../helpers/node.ts';
import { CHAIN_ID, error, GWEI, result, rpcNode, waitReceipt, wallets } from './rpc-helpers.ts';

const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, type: 2 };
const target = new Interface(artifacts.TraceTarget.abi);
const probe = new Interface(artifacts.TraceProbe.abi);
const lower = (s: string) => s.toLowerCase();
const hex = (n: number | bigint) => '0x' + n.toString(16);
const PRECOMPILE = /^0x0{38}(0[1-9a-f]|1[01])$/;
const LOOKBACK = 60;

async function send(url: string, w: number, tx: TransactionRequest): Promise<string> {
  const raw = await wallets[w].signTransaction({ chainId: CHAIN_ID, ...fee, ...tx });
  return result(url, 'eth_sendRawTransaction', [raw]);
}

/** callTracer's tree, depth first, precompile calls left out (as trace_* does). */
function flatten(frame: any, out: any[] = []): any[] {
  out.push(frame);
  for (const c of frame.calls ?? []) if (!PRECOMPILE.test(c.to ?? '')) flatten(c, out);
  return out;
}

test('trace_* over an in-process node', async (t) => {
  const { node, url } = await rpcNode(t, {
    'evm.max_trace_filter_blocks': '40',
    'evm.max_trace_lookback_blocks': String(LOOKBACK),
  });
  const w0 = wallets[0].address;
  const targetAddr = lower(getCreateAddress({ from: w0, nonce: 0 }));
  const probeAddr = lower(getCreateAddress({ from: w0, nonce: 1 }));
  const deploys = [
    await send(url, 0, { nonce: 0, gasLimit: 1_000_000, data: artifacts.TraceTarget.bytecode }),
    await send(url, 0, {
      nonce: 1,
      gasLimit: 2_000_000,
      data: artifacts.TraceProbe.bytecode + probe.encodeDeploy([targetAddr]).slice(2),
    }),
  ];
  for (const h of deploys) assert.equal((await waitReceipt(url, h)).status, '0x1');
  const tx = {
    nested: await send(url, 0, {
      nonce: 2,
      to: probeAddr,
      value: 1000n,
      gasLimit: 300_000,
      data: probe.encodeFunctionData('nested', [5n]),
    }),
    revert: await send(url, 0, {
      nonce: 3,
      to: probeAddr,
      gasLimit: 200_000,
      data: probe.encodeFunctionData('failing'),
    }),
    create: await send(url, 0, {
      nonce: 4,
      to: probeAddr,
      value: 10n,
      gasLimit: 1_000_000,
      data: probe.encodeFunctionData('deploy', ['0x' + '11'.repeat(32)]),
    }),
    transfer: await send(url, 1, { nonce: 0, to: wallets[2].address, value: 12345n, gasLimit: 21_000 }),
  };
  const receipts: Record<string, any> = {};
  for (const [name, h] of Object.entries(tx)) receipts[name] = await waitReceipt(url, h);
  assert.equal(receipts.revert.status, '0x0');
  const first = Number((await waitReceipt(url, deploys[0])).blockNumber);
  const last = Math.max(...Object.values(receipts).map((r) => Number(r.blockNumber)));

  await t.test('trace_transaction agrees with flatCallTracer and callTracer on every call', async () => {
    for (const [name, h] of Object.entries(tx)) {
      const traces = await result(url, 'trace_transaction', [h]);
      const flat = await result(url, 'debug_traceTransaction', [
        h,
        { tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } },
      ]);
      const tree = flatten(await result(url, 'debug_traceTransaction', [h, { tracer: 'callTracer' }]));
      assert.equal(traces.length, flat.length, name);
      assert.equal(traces.length, tree.length, name);
      traces.forEach((tr: any, i: number) => {
        const f = flat[i];
        const c = tree[i];
        const where = `${name} trace ${i}`;
        for (const k of [
          'blockHash',
          'blockNumber',
          'transactionHash',
          'transactionPosition',
          'traceAddress',
          'subtraces',
          'type',
          'error',
        ])
          assert.deepStrictEqual(tr[k], f[k], `${where}: ${k}`);
        assert.equal(tr.transactionHash, h);
        assert.equal(tr.blockNumber, Number(receipts[name].blockNumber));
        assert.equal(tr.blockHash, receipts[name].blockHash);
        // the top frame's gas is Parity's: after intrinsic gas, before refunds (geth's: limit, receipt)
        const { gas, ...action } = tr.action;
        const { gas: fgas, ...faction } = f.action;
        assert.deepStrictEqual(action, faction, where);
        if (i > 0) {
          assert.equal(gas, fgas, where);
          assert.deepStrictEqual(tr.result, f.result ?? null, where);
        } else {
          assert.ok(BigInt(gas) < BigInt(fgas), `${where}: top gas after intrinsic gas`);
        }
        // the callTracer names the same call
        assert.equal(tr.action.from ?? tr.action.address, lower(c.from), where);
        if (tr.type === 'call') {
          assert.equal(tr.action.to, lower(c.to), where);
          assert.equal(tr.action.input, c.input, where);
          assert.equal(tr.action.callType, lower(c.type), where);
          if (i > 0) assert.equal(tr.action.gas, c.gas, where);
          if (i > 0 && tr.result) assert.equal(tr.result.gasUsed, c.gasUsed, where);
        }
        if (tr.type === 'create') {
          assert.equal(tr.action.creationMethod, lower(c.type), where);
          assert.equal(tr.result.address, lower(c.to), where);
        }
        if (tr.type === 'suicide') assert.equal(c.type, 'SELFDESTRUCT', where);
      });
    }
    const nested = await result(url, 'trace_transaction', [tx.nested]);
    assert.deepStrictEqual(
      nested.map((x: any) => [x.action.callType, x.traceAddress, x.error]),
      [
        ['call', [], undefined],
        ['call', [0], undefined],
        ['staticcall', [1], undefined],
        ['delegatecall', [2], undefined],
        ['staticcall', [3], 'Reverted'],
      ],
    );
    const created = await result(url, 'trace_transaction', [tx.create]);
    assert.deepStrictEqual(
      created.map((x: any) => [x.type, x.action.creationMethod, x.traceAddress]),
      [
        ['call', undefined, []],
        ['create', 'create', [0]],
        ['create', 'create2', [1]],
        ['call', undefined, [2]],
        ['suicide', undefined, [2, 0]],
      ],
    );
    assert.equal(created[4].result, null);
    assert.equal(created[4].action.refundAddress, lower(w0));
    const transfer = await result(url, 'trace_transaction', [tx.transfer]);
    assert.deepStrictEqual(transfer[0].action, {
      from: lower(wallets[1].address),
      callType: 'call',
      gas: '0x0',
      input: '0x',
      to: lower(wallets[2].address),
      value: hex(12345),
    });
    assert.deepStrictEqual(transfer[0].result, { gasUsed: '0x0', output: '0x' });
    const reverted = await result(url, 'trace_transaction', [tx.revert]);
    assert.equal(reverted[0].error, 'Reverted');
    assert.ok(reverted[0].result.output.startsWith('0x08c379a0'));
  });

  await t.test('trace_get, trace_block, trace_replayTransaction, trace_replayBlockTransactions', async () => {
    const nested = await result(url, 'trace_transaction', [tx.nested]);
    assert.deepStrictEqual(await result(url, 'trace_get', [tx.nested, ['0x1']]), nested[1]);
    assert.equal(await result(url, 'trace_get', [tx.nested, ['0x9']]), null);
    const many = await error(url, 'trace_get', [tx.nested, ['0x0', '0x1']]);
    assert.equal(many.code, -32602);
    assert.match(many.message, /trace_get takes one index/);

    for (const name of Object.keys(tx)) {
      const height = receipts[name].blockNumber;
      const blockTxs = (await result(url, 'eth_getBlockByNumber', [height, false])).transactions as string[];
      const byTx = [];
      for (const h of blockTxs) byTx.push(...(await result(url, 'trace_transaction', [h])));
      assert.deepStrictEqual(await result(url, 'trace_block', [height]), byTx, `trace_block ${height}`);
      const replays = await result(url, 'trace_replayBlockTransactions', [height, ['trace', 'stateDiff']]);
      assert.deepStrictEqual(
        replays.map((r: any) => r.transactionHash),
        blockTxs,
      );
      for (const r of replays) {
        assert.deepStrictEqual(Object.keys(r), [
          'output',
          'stateDiff',
          'trace',
          'vmTrace',
          'transactionHash',
        ]);
        assert.equal(r.vmTrace, null);
        const one = await result(url, 'trace_replayTransaction', [r.transactionHash, ['trace', 'stateDiff']]);
        assert.deepStrictEqual({ ...one, transactionHash: r.transactionHash }, r);
        const local = await result(url, 'trace_transaction', [r.transactionHash]);
        assert.deepStrictEqual(
          r.trace,
          local.map(({ blockHash, blockNumber, transactionHash, transactionPosition, ...rest }: any) => rest),
        );
      }
    }
    const onlyTrace = await result(url, 'trace_replayTransaction', [tx.nested, ['trace']]);
    assert.equal(onlyTrace.stateDiff, null);
    assert.equal(onlyTrace.output, '0x' + '5'.padStart(64, '0'));
    const onlyDiff = await result(url, 'trace_replayTransaction', [tx.nested, ['stateDiff']]);
    assert.deepStrictEqual(onlyDiff.trace, []);
    const none = await result(url, 'trace_replayTransaction', [tx.nested, []]);
    assert.deepStrictEqual(none, { output: onlyTrace.output, stateDiff: null, trace: [], vmTrace: null });
  });

  await t.test("stateDiff: balances are eth_getBalance's, storage and nonces as they changed", async () => {
    // the transfer's sender and recipient send or receive nothing else in the scenario
    const h = Number(receipts.transfer.blockNumber);
    const { stateDiff } = await result(url, 'trace_replayTransaction', [tx.transfer, ['stateDiff']]);
    for (const w of [wallets[1].address, wallets[2].address]) {
      const before = await result(url, 'eth_getBalance', [w, hex(h - 1)]);
      const after = await result(url, 'eth_getBalance', [w, hex(h)]);
      assert.deepStrictEqual(stateDiff[lower(w)].balance, { '*': { from: before, to: after } }, w);
      assert.equal(stateDiff[lower(w)].code, '=');
      assert.deepStrictEqual(stateDiff[lower(w)].storage, {});
    }
    assert.deepStrictEqual(stateDiff[lower(wallets[1].address)].nonce, { '*': { from: '0x0', to: '0x1' } });
    assert.equal(stateDiff[lower(wallets[2].address)].nonce, '=');

    const nested = (await result(url, 'trace_replayTransaction', [tx.nested, ['stateDiff']])).stateDiff;
    const slot0 = '0x' + '00'.repeat(32);
    const word = (n: number) => '0x' + n.toString(16).padStart(64, '0');
    assert.deepStrictEqual(nested[targetAddr].storage, { [slot0]: { '*': { from: word(0), to: word(5) } } });
    assert.deepStrictEqual(nested[probeAddr].storage, { [slot0]: { '*': { from: word(0), to: word(6) } } });
    assert.deepStrictEqual(nested[probeAddr].balance, { '*': { from: '0x0', to: hex(1000) } });
    const created = (await result(url, 'trace_replayTransaction', [tx.create, ['stateDiff']])).stateDiff;
    const child = lower(getCreateAddress({ from: probeAddr, nonce: 1 }));
    assert.deepStrictEqual(created[child].balance, { '+': '0x1' });
    assert.deepStrictEqual(created[child].nonce, { '+': '0x1' });
  });

  await t.test('trace_filter: address matching, pagination, range bounds', async () => {
    const all: any[] = [];
    for (let h = first; h <= last; h++) all.push(...(await result(url, 'trace_block', [hex(h)])));
    const range = { fromBlock: hex(first), toBlock: hex(last) };
    assert.deepStrictEqual(await result(url, 'trace_filter', [range]), all);
    assert.deepStrictEqual(
      await result(url, 'trace_filter', [{ ...range, after: 1, count: 3 }]),
      all.slice(1, 4),
    );
    assert.deepStrictEqual(await result(url, 'trace_filter', [{ ...range, after: all.length }]), []);
    const toTarget = await result(url, 'trace_filter', [{ ...range, toAddress: [targetAddr] }]);
    // a trace's two ends as trace_filter matches them (reth's rules)
    const fromOf = (x: any) => (x.type === 'suicide' ? x.action.address : x.action.from);
    const toOf = (x: any) =>
      x.type === 'suicide' ? x.action.refundAddress : x.type === 'create' ? x.result?.address : x.action.to;
    assert.deepStrictEqual(
      toTarget,
      all.filter((x) => toOf(x) === targetAddr),
    );
    assert.equal(toTarget[0].type, 'create', 'its creation is a trace to it');
    assert.ok(toTarget.length >= 5);
    const fromProbe = await result(url, 'trace_filter', [{ ...range, fromAddress: [probeAddr] }]);
    assert.deepStrictEqual(
      fromProbe,
      all.filter((x) => fromOf(x) === probeAddr),
    );
    // a creation matches on the created address
    const child = lower(getCreateAddress({ from: probeAddr, nonce: 1 }));
    const toChild = await result(url, 'trace_filter', [{ ...range, toAddress: [child] }]);
    assert.deepStrictEqual(
      toChild.map((x: any) => x.type),
      ['create'],
    );
    // union (default) vs intersection with both lists
    const both = { ...range, fromAddress: [lower(w0)], toAddress: [targetAddr] };
    const union = await result(url, 'trace_filter', [both]);
    assert.deepStrictEqual(
      union,
      all.filter((x) => fromOf(x) === lower(w0) || toOf(x) === targetAddr),
    );
    const inter = await result(url, 'trace_filter', [{ ...both, mode: 'intersection' }]);
    assert.deepStrictEqual(
      inter,
      all.filter((x) => fromOf(x) === lower(w0) && toOf(x) === targetAddr),
    );
    assert.equal(inter.length, 1, 'the deployment of the target');

    await until(() => node.modules.chain.latestHeight >= 45);
    const wide = await error(url, 'trace_filter', [{ fromBlock: '0x0', toBlock: hex(44) }]);
    assert.deepStrictEqual(wide, {
      code: -32000,
      message:
        'trace_filter range 0..44 spans 45 blocks, more than max_trace_filter_blocks = 40; narrow fromBlock/toBlock',
    });
    const ahead = await error(url, 'trace_filter', [{ fromBlock: hex(first), toBlock: hex(10_000_000) }]);
    assert.equal(ahead.code, -32000);
    assert.match(ahead.message, /^toBlock 10000000 is beyond the latest block \d+$/);
    const reversed = await error(url, 'trace_filter', [{ fromBlock: hex(last), toBlock: hex(first) }]);
    assert.equal(reversed.code, -32602);
    const unknownField = await error(url, 'trace_filter', [{ fromBlock: hex(first), address: [] }]);
    assert.equal(unknownField.code, -32602);
    assert.match(unknownField.message, /unknown field "address"/);
  });

  await t.test(
    'trace_call, trace_callMany (each call on the state the previous left), trace_rawTransaction',
    async () => {
      const current = { from: w0, to: targetAddr, data: target.encodeFunctionData('current') };
      const word = (n: number) => '0x' + n.toString(16).padStart(64, '0');
      const call = await result(url, 'trace_call', [current, ['trace'], 'latest']);
      assert.equal(call.output, word(5));
      assert.equal(call.stateDiff, null);
      assert.deepStrictEqual(call.trace[0].action.to, targetAddr);
      assert.ok(!('transactionHash' in call.trace[0]));
      // at an earlier height: before the nested call stored 5
      const before = await result(url, 'trace_call', [current, [], hex(first + 1)]);
      assert.equal(before.output, word(0));

      const store = { from: w0, to: targetAddr, data: target.encodeFunctionData('store', [42n]) };
      const many = await result(url, 'trace_callMany', [
        [
          [store, ['trace', 'stateDiff']],
          [current, ['trace']],
        ],
        'latest',
      ]);
      assert.equal(many.length, 2);
      assert.deepStrictEqual(many[0].stateDiff[targetAddr].storage, {
        ['0x' + '00'.repeat(32)]: { '*': { from: word(5), to: word(42) } },
      });
      assert.equal(many[1].output, word(42));
      // nothing stayed
      assert.equal((await result(url, 'trace_call', [current, [], 'latest'])).output, word(5));

      const raw = await wallets[3].signTransaction({
        chainId: CHAIN_ID,
        ...fee,
        nonce: 0,
        to: wallets[4].address,
        value: 777n,
        gasLimit: 21_000,
      });
      const r = await result(url, 'trace_rawTransaction', [raw, ['trace', 'stateDiff']]);
      assert.deepStrictEqual(r.trace[0].action, {
        from: lower(wallets[3].address),
        callType: 'call',
        gas: '0x0',
        input: '0x',
        to: lower(wallets[4].address),
        value: hex(777),
      });
      assert.deepStrictEqual(r.stateDiff[lower(wallets[3].address)].nonce, {
        '*': { from: '0x0', to: '0x1' },
      });
      const w4 = r.stateDiff[lower(wallets[4].address)].balance['*'];
      assert.equal(BigInt(w4.to) - BigInt(w4.from), 777n);
      const stale = await wallets[1].signTransaction({
        chainId: CHAIN_ID,
        ...fee,
        nonce: 0,
        to: w0,
        gasLimit: 21_000,
      });
      const e = await error(url, 'trace_rawTransaction', [stale, ['trace']]);
      assert.equal(e.code, -32000);
      assert.match(e.message, /nonce too low/);
      const bad = await error(url, 'trace_rawTransaction', ['0x1234', ['trace']]);
      assert.equal(bad.code, -32602);
    },
  );

  await t.test('errors: unknown hashes and blocks, trace types, genesis, lookback', async () => {
    const unknown = '0x' + '11'.repeat(32);
    assert.equal(await result(url, 'trace_transaction', [unknown]), null);
    assert.equal(await result(url, 'trace_get', [unknown, ['0x0']]), null);
    assert.equal(await result(url, 'trace_block', [hex(10_000_000)]), null);
    assert.equal(await result(url, 'trace_block', [unknown]), null);
    assert.equal(await result(url, 'trace_replayBlockTransactions', [hex(10_000_000), ['trace']]), null);
    assert.deepStrictEqual(await error(url, 'trace_replayTransaction', [unknown, ['trace']]), {
      code: -32000,
      message: 'transaction not found',
    });
    assert.deepStrictEqual(await error(url, 'trace_replayTransaction', [tx.nested, ['trace', 'foo']]), {
      code: -32602,
      message: 'invalid argument 1: unknown trace type "foo": supported trace types are trace, stateDiff',
    });
    assert.deepStrictEqual(await error(url, 'trace_call', [{ to: w0 }, ['vmTrace'], 'latest']), {
      code: -32602,
      message:
        'invalid argument 1: trace type "vmTrace" is not supported by this node: supported trace types are trace, stateDiff',
    });
    assert.equal((await error(url, 'trace_replayBlockTransactions', ['latest', 'trace'])).code, -32602);
    const callManyBad = await error(url, 'trace_callMany', [[[{ to: w0 }, ['nope']]]]);
    assert.equal(callManyBad.code, -32602);
    assert.match(callManyBad.message, /call 0: unknown trace type "nope"/);
    for (const [m, params] of [
      ['trace_block', ['0x0']],
      ['trace_replayBlockTransactions', ['0x0', ['trace']]],
    ] as const)
      assert.deepStrictEqual(
        await error(url, m, [...params]),
        { code: -32000, message: 'genesis is not traceable' },
        m,
      );

    const mined = Number(receipts.nested.blockNumber);
    await until(() => node.modules.chain.latestHeight > mined + LOOKBACK + 1);
    const lookback = new RegExp(
      `^block ${mined} is \\d+ blocks behind the latest block \\d+: tracing reaches back at most max_trace_lookback_blocks = ${LOOKBACK} blocks$`,
    );
    for (const [m, params] of [
      ['trace_transaction', [tx.nested]],
      ['trace_replayTransaction', [tx.nested, ['trace']]],
      ['trace_block', [hex(mined)]],
      ['trace_filter', [{ fromBlock: hex(mined), toBlock: hex(mined) }]],
      ['trace_call', [{ to: w0 }, [], hex(mined)]],
    ] as const) {
      const e = await error(url, m, [...params]);
      assert.equal(e.code, -32000, m);
      assert.match(e.message, lookback, m);
    }
  });
});

test('[evm] disabled_namespaces: a disabled namespace answers -32601 naming the key and leaves rpc_modules', async (t) => {
  const { url } = await rpcNode(t, { 'evm.disabled_namespaces': 'trace,debug' });
  for (const [m, params] of [
    ['trace_block', ['latest']],
    ['debug_traceBlockByNumber', ['latest']],
  ] as const) {
    const ns = m.slice(0, m.indexOf('_'));
    assert.deepStrictEqual(await error(url, m, [...params]), {
      code: -32601,
      message: `the method ${m} is not available: the ${ns} namespace is disabled on this node ([evm] disabled_namespaces)`,
    });
  }
  const modules = await result(url, 'rpc_modules');
  assert.ok('eth' in modules);
  assert.ok(!('trace' in modules) && !('debug' in modules), JSON.stringify(modules));
  assert.equal(typeof (await result(url, 'eth_blockNumber')), 'string');
  const { url: open } = await rpcNode(t);
  const all = await result(open, 'rpc_modules');
  assert.ok('trace' in all && 'debug' in all, JSON.stringify(all));
});
