/** The debug_trace* options codec (geth's TraceConfig, Go durations) and the limits of `Tracing`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainReader } from '../../../../src/rpc/evm/backend.ts';
import {
  type BlockTraceEntry,
  debugMethods,
  type TraceBackend,
  Tracing,
} from '../../../../src/rpc/evm/debug.ts';
import { Resolver } from '../../../../src/rpc/evm/resolve.ts';
import { Dispatcher } from '../../../../src/rpc/server/dispatcher.ts';
import {
  formatGoDuration,
  parseGoDuration,
  parseTraceCallOptions,
  parseTraceOptions,
} from '../../../../src/rpc/evm/debug-options.ts';

test('Go durations as geth parses the timeout option', () => {
  const cases: [string, number | undefined][] = [
    ['5s', 5000],
    ['300ms', 300],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['2h45m10.5s', 9_910_500],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['1ns', 1e-6],
    ['0', 0],
    ['-1s', -1000],
    ['', undefined],
    ['5', undefined],
    ['5 s', undefined],
    ['s', undefined],
    ['1d', undefined],
  ];
  for (const [text, ms] of cases) assert.equal(parseGoDuration(text), ms, text);
  assert.equal(formatGoDuration(5000), '5s');
  assert.equal(formatGoDuration(90_000), '1m30s');
  assert.equal(formatGoDuration(250), '250ms');
});

test('TraceConfig: every member decoded, unknown ones ignored as Go does', () => {
  assert.deepEqual(
    parseTraceOptions({
      tracer: 'callTracer',
      tracerConfig: { onlyTopCall: true },
      timeout: '2s',
      disableStack: true,
      disableStorage: false,
      enableMemory: true,
      enableReturnData: true,
      limit: 10,
      reexec: 128,
      debug: true,
      somethingElse: 'x',
    }),
    {
      tracer: 'callTracer',
      tracerConfig: { onlyTopCall: true },
      timeoutMs: 2000,
      disableStack: true,
      disableStorage: false,
      enableMemory: true,
      enableReturnData: true,
      limit: 10,
    },
  );
  assert.deepEqual(parseTraceOptions({}), {});
  assert.deepEqual(parseTraceOptions({ tracer: null, timeout: null }), {});
  assert.throws(() => parseTraceOptions({ timeout: '0s' }), /timeout: must be positive, got "0s"/);
  assert.throws(() => parseTraceOptions({ reexec: -1 }), /TraceConfig\.reexec of type uint64/);
  assert.throws(() => parseTraceOptions({ limit: 1.5 }), /TraceConfig\.limit of type int/);
});

test('TraceCallConfig: overrides through the eth_call codecs; txIndex refused', () => {
  const o = parseTraceCallOptions({
    tracer: 'callTracer',
    stateOverrides: { ['0x' + '11'.repeat(20)]: { balance: '0x10' } },
    blockOverrides: { number: '0x5' },
  });
  assert.equal(o.tracer, 'callTracer');
  assert.equal(o.stateOverrides![0].balance, 16n);
  assert.equal(o.blockOverrides!.number, 5n);
  assert.throws(
    () => parseTraceCallOptions({ stateOverrides: { '0x11': {} } }),
    /^CodecError: stateOverrides: address 0x11: /,
  );
  assert.throws(
    () => parseTraceCallOptions({ blockOverrides: { nope: 1 } }),
    /blockOverrides: unknown field "nope"/,
  );
  assert.throws(() => parseTraceCallOptions({ txIndex: '0x0' }), /txIndex: tracing a call at a position/);
});

function chainAt(latest: number): ChainReader {
  return {
    latestHeight: () => latest,
    txLocation: () => ({ height: latest, evmIndex: 0 }),
  } as unknown as ChainReader;
}

/** A backend whose traces finish only when the test says so, recording the timeouts it was given. */
function heldBackend() {
  const release: (() => void)[] = [];
  const timeouts: number[] = [];
  const hold = <T>(v: T, ms: number) => {
    timeouts.push(ms);
    return new Promise<T>((r) => release.push(() => r(v)));
  };
  const backend: TraceBackend = {
    traceTransaction: (_h, _i, _o, ms) => hold({ tx: true }, ms),
    traceBlock: (_h, _o, ms) => hold([] as BlockTraceEntry[], ms),
    traceCall: (_h, _c, _o, ms) => hold({ call: true }, ms),
  };
  return { backend, release, timeouts };
}

test('max_concurrent_trace_calls: one more is refused at once, a freed slot is reused', async () => {
  const { backend, release } = heldBackend();
  const tracing = new Tracing(backend, chainAt(10), {
    timeoutMs: 30_000,
    maxConcurrent: 2,
    maxLookback: 100,
  });
  const a = tracing.traceBlock(9);
  const b = tracing.traceTransaction(new Uint8Array(32));
  await assert.rejects(tracing.traceCall(10, {}), {
    code: 'TRACE_BUSY',
    message:
      'busy: 2 trace calls (debug_trace*, trace_*) are running, the most this node serves at once (max_concurrent_trace_calls = 2); try again later',
  });
  release.shift()!();
  assert.deepEqual(await a, []);
  const c = tracing.traceCall(10, {});
  release.splice(0).forEach((r) => r());
  assert.deepEqual(await b, { tx: true });
  assert.deepEqual(await c, { call: true });
});

test('a failed trace frees its slot', async () => {
  const backend: TraceBackend = {
    traceTransaction: async () => {
      throw new Error('boom');
    },
    traceBlock: async () => [],
    traceCall: async () => ({}),
  };
  const tracing = new Tracing(backend, chainAt(10), { timeoutMs: 0, maxConcurrent: 1, maxLookback: 100 });
  await assert.rejects(tracing.traceTransaction(new Uint8Array(32)), /boom/);
  assert.deepEqual(await tracing.traceBlock(10), []);
});

test('the timeout option is capped at trace_timeout; without it, trace_timeout applies', async () => {
  const { backend, release, timeouts } = heldBackend();
  const tracing = new Tracing(backend, chainAt(10), {
    timeoutMs: 30_000,
    maxConcurrent: 10,
    maxLookback: 100,
  });
  const runs = [
    tracing.traceBlock(10, {}),
    tracing.traceBlock(10, { timeoutMs: 5000 }),
    tracing.traceBlock(10, { timeoutMs: 600_000 }),
  ];
  release.forEach((r) => r());
  await Promise.all(runs);
  assert.deepEqual(timeouts, [30_000, 5000, 30_000]);
  const unbounded = new Tracing(backend, chainAt(10), { timeoutMs: 0, maxConcurrent: 10, maxLookback: 100 });
  assert.equal(unbounded.timeoutOf({}), 0);
  assert.equal(unbounded.timeoutOf({ timeoutMs: 7 }), 7);
});

test('lookback and genesis are refused before any work', async () => {
  const { backend, timeouts } = heldBackend();
  const tracing = new Tracing(backend, chainAt(1000), { timeoutMs: 0, maxConcurrent: 1, maxLookback: 100 });
  await assert.rejects(tracing.traceBlock(899), {
    code: 'TRACE_LOOKBACK',
    message:
      'block 899 is 101 blocks behind the latest block 1000: tracing reaches back at most max_trace_lookback_blocks = 100 blocks',
  });
  await assert.rejects(tracing.traceBlock(0), { code: 'TRACE_GENESIS', message: 'genesis is not traceable' });
  assert.deepEqual(timeouts, []);
  void tracing.traceBlock(900); // exactly at the limit: served
  assert.equal(timeouts.length, 1);
});

test('block traces answer {txHash, result} per transaction, {txHash, error} for one whose trace failed', async () => {
  const h = (b: number) => new Uint8Array(32).fill(b);
  const backend: TraceBackend = {
    traceTransaction: async () => ({}),
    traceBlock: async () => [
      { txHash: h(0xa1), result: { gas: 21000 } },
      { txHash: h(0xa2), error: 'tracer failed' },
    ],
    traceCall: async () => ({}),
  };
  const chain = {
    ...chainAt(10),
    earliestBlockHeight: () => 0,
    heightByHash: (hash: Uint8Array) => (hash[0] === 0xbb ? 5 : undefined),
  } as unknown as ChainReader;
  const tracing = new Tracing(backend, chain, { timeoutMs: 0, maxConcurrent: 1, maxLookback: 100 });
  const d = new Dispatcher(debugMethods(tracing, new Resolver(chain), chain));
  const want = [
    { txHash: '0x' + 'a1'.repeat(32), result: { gas: 21000 } },
    { txHash: '0x' + 'a2'.repeat(32), error: 'tracer failed' },
  ];
  assert.deepEqual(await d.call('debug_traceBlockByNumber', ['0x5']), want);
  assert.deepEqual(await d.call('debug_traceBlockByHash', ['0x' + 'bb'.repeat(32)]), want);
});
