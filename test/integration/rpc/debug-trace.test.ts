/**
 * debug_trace* end to end: a real node (lmdb stores, HTTP server), a mixed block built from signed
 * txs, and ethers / plain fetch clients.
 *
 * Faithful replay: for every tx of the mixed block (success, nested calls with a caught revert, a
 * storage refund on a slot an earlier tx of the block set, revert, out of gas, contract creation,
 * CREATE2 + same-tx self-destruct, self-destruct of an old contract, an EIP-7702 delegation,
 * transient storage, and a Cosmos MsgSend in between) the replay's gas used, status, logs, contract
 * address and cumulative gas equal the stored receipt — with a tracer attached to every tx and with
 * none. Receipts do not keep return data; it is checked against
 * what is known independently (the deployed code, the ABI-encoded return and revert reason).
 *
 * The tracer outputs' field formats are the tracer tests' subject (test/unit/execution/tracing);
 * here each RPC method is shown to return them over HTTP, and every limit and error is checked with
 * its exact code and message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import {
  getCreate2Address,
  getCreateAddress,
  Interface,
  JsonRpcProvider,
  keccak256,
  type TransactionRequest,
} from 'ethers';
import { TraceReplayer } from '../../../src/chain/trace-replay.ts';
import { createTracer } from '../../../src/execution/tracing/index.ts';
import { AuthReader } from '../../../src/app/auth.ts';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import type { ChainNode } from '../../../src/node/node.ts';
import { artifacts } from '../../helpers/dev-chain.ts';
import { DEV_ACCOUNTS, makeHome, startNode, until } from '../../helpers/node.ts';
import { CHAIN_ID, error, GWEI, result, rpc, waitReceipt, wallets } from './rpc-helpers.ts';

const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, type: 2 };
const callee = new Interface(artifacts.ReplayCallee.abi);
const caller = new Interface(artifacts.ReplayCaller.abi);
const doomed = new Interface(artifacts.ReplayDoomed.abi);
const counter = new Interface(artifacts.Counter.abi);
const transient = new Interface(artifacts.TransientProbe.abi);
const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const lower = (s: string) => s.toLowerCase();

async function send(url: string, w: number, tx: TransactionRequest): Promise<string> {
  const raw = await wallets[w].signTransaction({ chainId: CHAIN_ID, ...fee, ...tx });
  return result(url, 'eth_sendRawTransaction', [raw]);
}

async function cosmosSend(
  node: ChainNode,
  from: number,
  to: Uint8Array,
  amount: string,
): Promise<Uint8Array> {
  const key = DEV_ACCOUNTS[from];
  const acc = new AuthReader(node.modules.chain.state).account(key.cosmosAddress)!;
  const wallet = await DirectSecp256k1Wallet.fromKey(key.privateKey, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet);
  const signed = await client.sign(
    address,
    [
      {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: { fromAddress: address, toAddress: toAccAddress(to), amount: [{ denom: 'uchain', amount }] },
      },
    ],
    { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' },
    '',
    { accountNumber: acc.accountNumber, sequence: Number(acc.sequence), chainId: 'it-1' },
  );
  return node.modules.cosmosPool.checkTx(TxRaw.encode(signed).finish()).hash;
}

interface Scenario {
  node: ChainNode;
  url: string;
  /** height of the mixed block */
  height: number;
  /** tx hashes of the mixed block by name */
  tx: Record<string, string>;
  addresses: { callee: string; caller: string; doomed: string; counter: string; transient: string };
}

/**
 * Deploys the fixtures (one block), then puts the mixed txs into one block by sending them while the
 * producer is stopped.
 */
async function scenario(
  t: { after(fn: () => unknown): void },
  flags: Record<string, string> = {},
): Promise<Scenario> {
  const home = makeHome(t);
  const node = await startNode(home, { 'consensus.create-empty-blocks': 'false', ...flags });
  t.after(() => node.stop());
  const url = node.modules.evmHttp!.url;
  const d = wallets[0].address;
  const at = (nonce: number) => getCreateAddress({ from: d, nonce });
  const addresses = {
    callee: at(0),
    caller: at(1),
    doomed: at(2),
    counter: at(3),
    transient: at(4),
  };
  const deploys = [
    artifacts.ReplayCallee.bytecode,
    artifacts.ReplayCaller.bytecode + caller.encodeDeploy([addresses.callee]).slice(2),
    artifacts.ReplayDoomed.bytecode,
    artifacts.Counter.bytecode,
    artifacts.TransientProbe.bytecode,
  ];
  const hashes = [];
  for (const [nonce, data] of deploys.entries())
    hashes.push(await send(url, 0, { nonce, data, gasLimit: 3_000_000, value: nonce === 2 ? 5000n : 0n }));
  for (const h of hashes) assert.equal((await waitReceipt(url, h)).status, '0x1');

  await node.modules.engine.producer!.stop();
  const tx: Record<string, string> = {};
  tx.transfer = await send(url, 1, { nonce: 0, to: wallets[2].address, value: 10n ** 15n, gasLimit: 21000 });
  tx.nested = await send(url, 1, {
    nonce: 1,
    to: addresses.caller,
    data: caller.encodeFunctionData('nested', [7n]),
    gasLimit: 300_000,
  });
  // clears the slot nested() set earlier in this block: a storage refund the replay must reproduce
  tx.refund = await send(url, 1, {
    nonce: 2,
    to: addresses.callee,
    data: callee.encodeFunctionData('set', [0n]),
    gasLimit: 100_000,
  });
  tx.revert = await send(url, 2, {
    nonce: 0,
    to: addresses.caller,
    data: caller.encodeFunctionData('mustFail'),
    gasLimit: 100_000,
  });
  tx.outOfGas = await send(url, 2, {
    nonce: 1,
    to: addresses.caller,
    data: caller.encodeFunctionData('fill', [1000n]),
    gasLimit: 90_000,
  });
  const cosmosHash = await cosmosSend(node, 7, DEV_ACCOUNTS[3].cosmosAddress, '1000');
  tx.create = await send(url, 3, { nonce: 0, data: artifacts.ReplayCallee.bytecode, gasLimit: 1_000_000 });
  tx.spawn = await send(url, 3, {
    nonce: 1,
    to: addresses.caller,
    data: caller.encodeFunctionData('spawnAndDestroy', ['0x' + '11'.repeat(32)]),
    value: 777n,
    gasLimit: 400_000,
  });
  tx.selfdestruct = await send(url, 4, {
    nonce: 0,
    to: addresses.doomed,
    data: doomed.encodeFunctionData('destroy', [wallets[4].address]),
    gasLimit: 100_000,
  });
  const auth = await wallets[5].authorize({ address: addresses.counter, nonce: 1, chainId: CHAIN_ID });
  tx.delegation = await send(url, 5, {
    type: 4,
    nonce: 0,
    to: wallets[5].address,
    data: counter.encodeFunctionData('increment'),
    authorizationList: [auth],
    gasLimit: 200_000,
  });
  tx.transient = await send(url, 6, {
    nonce: 0,
    to: addresses.transient,
    data: transient.encodeFunctionData('storeAndLoad', [42n]),
    gasLimit: 100_000,
  });
  node.modules.engine.producer!.start();
  const receipts = await Promise.all(Object.values(tx).map((h) => waitReceipt(url, h)));
  const height = Number(receipts[0].blockNumber);
  assert.deepEqual(
    receipts.map((r) => Number(r.blockNumber)),
    receipts.map(() => height),
    'every tx of the scenario in one block',
  );
  await until(() => {
    const r = node.modules.blocks.cosmosResultByHash(cosmosHash);
    return r && r.location.height === height && r.result.code === 0;
  });
  return { node, url, height, tx, addresses };
}

test('debug_trace* over a mixed block', async (t) => {
  const s = await scenario(t);
  const { node, url, height } = s;
  const provider = new JsonRpcProvider(url, Number(CHAIN_ID), { staticNetwork: true, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  const receipts = await result(url, 'eth_getBlockReceipts', [`0x${height.toString(16)}`]);
  const block = node.modules.blocks.blockByHeight(height)!;
  assert.ok(
    block.txs.some((raw) => node.modules.chain.decodeBlockTx(raw).kind === 'cosmos'),
    'the block carries a Cosmos tx besides the EVM ones',
  );
  const statusOf = Object.fromEntries(
    Object.entries(s.tx).map(([name, h]) => [
      name,
      receipts.find((r: any) => r.transactionHash === h).status,
    ]),
  );
  assert.deepEqual(statusOf, {
    transfer: '0x1',
    nested: '0x1',
    refund: '0x1',
    revert: '0x0',
    outOfGas: '0x0',
    create: '0x1',
    spawn: '0x1',
    selfdestruct: '0x1',
    delegation: '0x1',
    transient: '0x1',
  });

  await t.test('the replay reproduces every receipt, untraced and under each kind of tracer', async () => {
    const replayer = new TraceReplayer(node.modules.chain, node.modules.ss);
    // undefined: no tracer; '': the struct logger (reads storage as it steps); prestate reads accounts
    for (const traced of [undefined, 'callTracer', '', 'prestateTracer']) {
      const replayed = await replayer.replay(height, {
        execOptions:
          traced === undefined
            ? undefined
            : (i, hash) => ({
                tracer: createTracer(
                  { tracer: traced, enableMemory: true, enableReturnData: true },
                  { txHash: hash, txIndex: i, blockHeight: BigInt(height) },
                ),
              }),
      });
      assert.equal(replayed.length, receipts.length);
      for (const [i, r] of receipts.entries()) {
        const o = replayed[i].outcome;
        const what = `tx ${i} (${r.transactionHash}), traced=${traced}`;
        assert.equal(hex(o.tx.hash), r.transactionHash, what);
        assert.equal('0x' + o.gasUsed.toString(16), r.gasUsed, what);
        assert.equal('0x' + o.cumulativeGasUsed.toString(16), r.cumulativeGasUsed, what);
        assert.equal('0x' + o.effectiveGasPrice.toString(16), r.effectiveGasPrice, what);
        assert.equal(`0x${o.status}`, r.status, what);
        assert.equal(o.contractAddress ? hex(o.contractAddress) : null, r.contractAddress, what);
        assert.deepEqual(
          o.logs.map((l) => ({ address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) })),
          r.logs.map((l: any) => ({ address: l.address, topics: l.topics, data: l.data })),
          what,
        );
      }
      // return data, known independently of the replay
      const byName = (name: string) =>
        replayed[receipts.findIndex((r: any) => r.transactionHash === s.tx[name])].outcome;
      assert.equal(hex(byName('nested').returnData), caller.encodeFunctionResult('nested', [21n]));
      assert.equal(hex(byName('refund').returnData), callee.encodeFunctionResult('set', [0n]));
      assert.equal(hex(byName('revert').returnData), callee.encodeErrorResult('Error', ['outer']));
      const created: string = receipts.find((r: any) => r.transactionHash === s.tx.create).contractAddress;
      assert.equal(hex(byName('create').returnData), await result(url, 'eth_getCode', [created, 'latest']));
      const spawned = getCreate2Address(
        s.addresses.caller,
        '0x' + '11'.repeat(32),
        keccak256(artifacts.ReplayDoomed.bytecode),
      );
      assert.equal(
        hex(byName('spawn').returnData),
        caller.encodeFunctionResult('spawnAndDestroy', [spawned]),
      );
      assert.equal(
        await result(url, 'eth_getCode', [spawned, 'latest']),
        '0x',
        'destroyed in its creating tx',
      );
      assert.equal(byName('outOfGas').error, 'out of gas');
      assert.equal(hex(byName('outOfGas').returnData), '0x');
      // functions that return nothing, and a plain transfer
      for (const name of ['transfer', 'selfdestruct', 'delegation', 'transient'])
        assert.equal(hex(byName(name).returnData), '0x', name);
    }
  });

  await t.test('debug_traceTransaction: struct logger over ethers', async () => {
    const trace = await provider.send('debug_traceTransaction', [s.tx.nested]);
    const r = receipts.find((x: any) => x.transactionHash === s.tx.nested);
    assert.equal(trace.gas, Number(r.gasUsed));
    assert.equal(trace.failed, false);
    assert.equal('0x' + trace.returnValue.replace(/^0x/, ''), caller.encodeFunctionResult('nested', [21n]));
    assert.ok(trace.structLogs.length > 100);
    const first = trace.structLogs[0];
    assert.deepEqual(
      Object.keys(first)
        .filter((k) => ['pc', 'op', 'gas', 'gasCost', 'depth', 'stack'].includes(k))
        .sort(),
      ['depth', 'gas', 'gasCost', 'op', 'pc', 'stack'],
    );
    assert.equal(first.pc, 0);
    assert.equal(first.depth, 1);
    assert.ok(
      trace.structLogs.some((l: any) => l.depth === 2),
      'steps of the nested calls',
    );
    assert.ok(trace.structLogs.some((l: any) => l.op === 'SSTORE' && l.storage));

    const bare = await provider.send('debug_traceTransaction', [
      s.tx.nested,
      { disableStack: true, disableStorage: true, limit: 10 },
    ]);
    assert.equal(bare.structLogs.length, 10);
    assert.ok(bare.structLogs.every((l: any) => l.stack === undefined && l.storage === undefined));

    // the refund is there (nonzero → zero, with the slot's value set by nested() earlier in the block)
    const refunded = await provider.send('debug_traceTransaction', [s.tx.refund]);
    const sstore = refunded.structLogs.findIndex((l: any) => l.op === 'SSTORE');
    assert.ok(sstore >= 0);
    assert.equal(refunded.structLogs[sstore].refund, 4800, 'EIP-3529 refund for clearing the slot');
    assert.equal(refunded.structLogs.at(-1).refund, 4800);

    const failed = await provider.send('debug_traceTransaction', [s.tx.revert]);
    assert.equal(failed.failed, true);
    assert.equal('0x' + failed.returnValue.replace(/^0x/, ''), callee.encodeErrorResult('Error', ['outer']));
  });

  await t.test(
    'debug_traceBlockByNumber / ByHash: callTracer, one entry per EVM tx in block order',
    async () => {
      const hashOfBlock = (await result(url, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false]))
        .hash;
      const byNumber = await provider.send('debug_traceBlockByNumber', [
        `0x${height.toString(16)}`,
        { tracer: 'callTracer' },
      ]);
      const byHash = await provider.send('debug_traceBlockByHash', [hashOfBlock, { tracer: 'callTracer' }]);
      assert.deepEqual(byHash, byNumber);
      assert.deepEqual(
        byNumber.map((e: any) => e.txHash),
        receipts.map((r: any) => r.transactionHash),
      );
      for (const [i, e] of byNumber.entries()) {
        const r = receipts[i];
        assert.equal(e.error, undefined);
        assert.equal(e.result.gasUsed, r.gasUsed, `callTracer gasUsed of ${r.transactionHash}`);
        assert.equal(lower(e.result.from), r.from);
        assert.equal(e.result.type, r.to === null ? 'CREATE' : 'CALL');
        assert.equal(e.result.error !== undefined, r.status === '0x0');
      }
      const get = (name: string) =>
        byNumber[receipts.findIndex((r: any) => r.transactionHash === s.tx[name])].result;
      assert.equal(get('revert').error, 'execution reverted');
      assert.equal(get('revert').revertReason, 'outer');
      assert.equal(get('outOfGas').error, 'out of gas');
      const nested = get('nested');
      assert.deepEqual(
        nested.calls.map((c: any) => c.type),
        ['CALL', 'STATICCALL', 'STATICCALL'], // fail() is pure and value() a view: both STATICCALL
      );
      assert.equal(nested.calls[1].error, 'execution reverted');
      assert.deepEqual(
        get('spawn').calls.map((c: any) => c.type),
        ['CREATE2', 'CALL'],
      );
      assert.equal(get('spawn').calls[1].calls[0].type, 'SELFDESTRUCT');

      const top = await provider.send('debug_traceBlockByNumber', [
        `0x${height.toString(16)}`,
        { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
      ]);
      assert.ok(top.every((e: any) => e.result.calls === undefined));
    },
  );

  await t.test('the other tracers answer over HTTP', async () => {
    const tag = `0x${height.toString(16)}`;
    for (const tracer of ['flatCallTracer', 'prestateTracer', '4byteTracer', 'noopTracer']) {
      const entries = await result(url, 'debug_traceBlockByNumber', [tag, { tracer }]);
      assert.equal(entries.length, receipts.length, tracer);
      assert.ok(
        entries.every((e: any) => e.result !== undefined && e.error === undefined),
        tracer,
      );
    }
    const noop = await result(url, 'debug_traceTransaction', [s.tx.transfer, { tracer: 'noopTracer' }]);
    assert.deepEqual(noop, {});
    const diff = await result(url, 'debug_traceTransaction', [
      s.tx.transient,
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
    ]);
    assert.ok(diff.pre && diff.post);
  });

  await t.test('debug_traceCall with state and block overrides', async () => {
    const call = {
      from: wallets[8].address,
      to: s.addresses.caller,
      data: caller.encodeFunctionData('nested', [5n]),
      gas: '0x100000',
    };
    const trace = await provider.send('debug_traceCall', [call, 'latest', { tracer: 'callTracer' }]);
    assert.equal(trace.output, caller.encodeFunctionResult('nested', [15n]));
    assert.equal(trace.calls.length, 3);
    // the callee's code replaced by one that returns NUMBER: the overrides reach the traced run
    const probe = '0x43600052' + '60206000f3';
    const overridden = await provider.send('debug_traceCall', [
      { from: wallets[8].address, to: s.addresses.callee, data: '0x', gas: '0x10000' },
      'latest',
      {
        tracer: 'callTracer',
        stateOverrides: { [s.addresses.callee]: { code: probe } },
        blockOverrides: { number: '0x1234' },
      },
    ]);
    assert.equal(overridden.output, '0x' + '1234'.padStart(64, '0'));
    const logged = await provider.send('debug_traceCall', [call, 'latest', {}]);
    assert.equal(logged.failed, false);
    assert.ok(logged.structLogs.length > 0);
  });

  await t.test('errors and limits, with their codes and messages', async () => {
    const unknownTx = '0x' + 'ab'.repeat(32);
    assert.deepEqual(await error(url, 'debug_traceTransaction', [unknownTx]), {
      code: -32000,
      message: 'transaction not found',
    });
    assert.deepEqual(await error(url, 'debug_traceBlockByNumber', ['0x0']), {
      code: -32000,
      message: 'genesis is not traceable',
    });
    assert.deepEqual(await error(url, 'debug_traceBlockByNumber', ['earliest']), {
      code: -32000,
      message: 'genesis is not traceable',
    });
    const genesisHash = (await provider.send('eth_getBlockByNumber', ['0x0', false])).hash;
    assert.deepEqual(await error(url, 'debug_traceBlockByHash', [genesisHash]), {
      code: -32000,
      message: 'genesis is not traceable',
    });
    assert.deepEqual(await error(url, 'debug_traceBlockByHash', ['0x' + '00'.repeat(32)]), {
      code: -32000,
      message: `block 0x${'00'.repeat(32)} not found`,
    });
    const future = height + 1000;
    assert.deepEqual(await error(url, 'debug_traceBlockByNumber', [`0x${future.toString(16)}`]), {
      code: -32000,
      message: `block #${future} not found`,
    });
    assert.deepEqual(await error(url, 'debug_traceBlockByHash', [unknownTx]), {
      code: -32000,
      message: `block ${unknownTx} not found`,
    });
    const unknownTracer = (name: string) => ({
      code: -32000,
      message:
        `tracer ${JSON.stringify(name)} is not available: allowed tracers are callTracer, flatCallTracer, ` +
        'prestateTracer, 4byteTracer, noopTracer (or no tracer for the struct logger); JavaScript tracers ' +
        'are not supported',
    });
    const jsTracer = '{step: function() {}, result: function() { return 1; }}';
    assert.deepEqual(
      await error(url, 'debug_traceTransaction', [s.tx.nested, { tracer: jsTracer }]),
      unknownTracer(jsTracer),
    );
    assert.deepEqual(
      await error(url, 'debug_traceBlockByNumber', [`0x${height.toString(16)}`, { tracer: 'opcodeTracer' }]),
      unknownTracer('opcodeTracer'),
    );
    assert.deepEqual(
      await error(url, 'debug_traceCall', [{ to: s.addresses.callee }, 'latest', { tracer: 'callTracerX' }]),
      unknownTracer('callTracerX'),
    );
    const bad: [unknown, RegExp][] = [
      [{ timeout: 'soon' }, /^invalid argument 1: timeout: time: invalid duration "soon"/],
      [{ timeout: 5 }, /^invalid argument 1: .*TraceConfig\.timeout of type \*string/],
      [{ limit: 'all' }, /^invalid argument 1: .*TraceConfig\.limit of type int/],
      [{ limit: -1 }, /^invalid argument 1: limit: must not be negative/],
      [{ disableStack: 'yes' }, /^invalid argument 1: .*TraceConfig\.disableStack of type bool/],
      [{ tracer: 7 }, /^invalid argument 1: .*TraceConfig\.tracer of type \*string/],
      [{ tracerConfig: [] }, /^invalid argument 1: tracerConfig: want a JSON object/],
      [
        'callTracer',
        /^invalid argument 1: json: cannot unmarshal string into Go value of type tracers\.TraceConfig/,
      ],
    ];
    for (const [options, message] of bad) {
      const e = await error(url, 'debug_traceTransaction', [s.tx.nested, options]);
      assert.equal(e.code, -32602, JSON.stringify(options));
      assert.match(e.message, message);
    }
    const badConfig = await error(url, 'debug_traceTransaction', [
      s.tx.nested,
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: 'yes' } },
    ]);
    assert.equal(badConfig.code, -32602);
    assert.match(badConfig.message, /^invalid argument 1: .*onlyTopCall/);
    const callBad = await error(url, 'debug_traceCall', [
      { to: s.addresses.callee },
      'latest',
      { txIndex: '0x1' },
    ]);
    assert.equal(callBad.code, -32602);
    assert.match(callBad.message, /txIndex/);
    // a timeout shorter than anything the trace can do
    assert.deepEqual(await error(url, 'debug_traceTransaction', [s.tx.outOfGas, { timeout: '1ns' }]), {
      code: -32000,
      message: 'execution timeout',
    });
  });

  await t.test('over WebSocket too (the same dispatcher)', async () => {
    const ws = new WebSocket(node.modules.evmWs!.url);
    t.after(() => ws.close());
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    const answer = new Promise<any>((resolve) => (ws.onmessage = (m) => resolve(JSON.parse(String(m.data)))));
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'debug_traceTransaction',
        params: [s.tx.transfer, { tracer: 'callTracer' }],
      }),
    );
    const a = await answer;
    assert.equal(a.result.type, 'CALL');
    assert.equal(a.result.gasUsed, '0x5208');
  });
});

test('[evm] max_trace_lookback_blocks, max_concurrent_trace_calls and trace_timeout, over HTTP, shared with the legacy chain_traceBlockBy*ExcludeTraceFail', async (t) => {
  const home = makeHome(t);
  const legacyTrace = ['chain_traceBlockByNumberExcludeTraceFail', 'chain_traceBlockByHashExcludeTraceFail'];
  const node = await startNode(home, {
    'evm.max_trace_lookback_blocks': '2',
    'evm.max_concurrent_trace_calls': '1',
    'evm.trace_timeout': '2s',
    'evm.enabled_legacy_chain_apis': legacyTrace.join(','),
  });
  t.after(() => node.stop());
  const url = node.modules.evmHttp!.url;
  const h = await send(url, 1, { nonce: 0, to: wallets[2].address, value: 1n, gasLimit: 21000 });
  const minedReceipt = await waitReceipt(url, h);
  const mined = Number(minedReceipt.blockNumber);
  await until(() => node.modules.chain.latestHeight >= mined + 3);
  const lookback = new RegExp(
    `^block ${mined} is \\d+ blocks behind the latest block \\d+: tracing reaches back at most max_trace_lookback_blocks = 2 blocks$`,
  );
  const e = await error(url, 'debug_traceTransaction', [h]);
  assert.equal(e.code, -32000);
  assert.match(e.message, lookback);
  // the legacy trace variants go through the same Tracing: the same refusals, word for word
  for (const [name, ref] of [
    [legacyTrace[0], minedReceipt.blockNumber],
    [legacyTrace[1], minedReceipt.blockHash],
  ]) {
    const le = await error(url, name, [ref, { tracer: 'callTracer' }]);
    assert.equal(le.code, -32000, name);
    assert.match(le.message, lookback, name);
  }
  assert.deepEqual(await error(url, legacyTrace[0], ['0x0', {}]), {
    code: -32000,
    message: 'genesis is not traceable',
  });

  // One trace that can only end at its timeout (an endless loop with 100M gas) holds the only slot;
  // requests sent meanwhile, debug_ and legacy alike, are refused at once. It is polled for, not
  // timed: the first answer after the long trace has started is the refusal. Its timeout option
  // (1h) is capped by trace_timeout (2s). Should a poll have taken the slot first (the long trace is
  // then the one refused), the round is repeated.
  const spinner = '0x' + '77'.repeat(20);
  const busyError = {
    code: -32000,
    message:
      'busy: 1 trace calls (debug_trace*, trace_*) are running, the most this node serves at once (max_concurrent_trace_calls = 1); try again later',
  };
  let refused: Record<string, unknown> = {};
  let longAnswer;
  for (let round = 0; round < 5 && longAnswer?.error?.message !== 'execution timeout'; round++) {
    refused = {};
    let settled = false;
    const long = rpc(url, 'debug_traceCall', [
      { to: spinner, gas: '0x5f5e100' },
      'latest',
      { tracer: 'noopTracer', timeout: '1h', stateOverrides: { [spinner]: { code: '0x5b600056' } } },
    ]).finally(() => (settled = true));
    for (let i = 0; i < 2000 && !settled && Object.keys(refused).length < 2; i++) {
      const [name, params] =
        i % 2 === 0
          ? ['debug_traceBlockByNumber', ['latest', { tracer: 'noopTracer' }]]
          : [legacyTrace[0], ['latest', { tracer: 'noopTracer' }]];
      const r = await rpc(url, name as string, params as unknown[]);
      if (r.error && !(name in refused)) refused[name as string] = r.error;
    }
    longAnswer = await long;
  }
  assert.deepEqual(longAnswer!.error, { code: -32000, message: 'execution timeout' });
  assert.deepEqual(refused, { debug_traceBlockByNumber: busyError, [legacyTrace[0]]: busyError });
  assert.deepEqual(await result(url, 'debug_traceBlockByNumber', ['latest', { tracer: 'noopTracer' }]), []);
  assert.deepEqual(await result(url, legacyTrace[0], ['latest', { tracer: 'noopTracer' }]), []);
});
