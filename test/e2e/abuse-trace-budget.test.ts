/**
 * One debug_traceCall once took the node down: a loop that grows memory, traced with memory
 * snapshots, built struct logs until V8 ran out of heap (without enableMemory, a plain loop answered
 * 177 MB). Every tracer now charges the output it keeps against `[evm] max_trace_response_bytes` and
 * stops the trace with -32000 naming the limit and the key as soon as it passes it. The node runs
 * with a 512 MB heap here, which the old code's trace outgrew within seconds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alive, BlockNumberProbe, post, spawnDev } from '../helpers/abuse.ts';

const LIMIT = 1_048_576;
const TOO_LARGE =
  `trace too large: its output exceeds max_trace_response_bytes = ${LIMIT} bytes ([evm] max_trace_response_bytes); ` +
  'trace less (the limit option, disableStack, disableStorage, no enableMemory, or a call tracer)';

test('traces that would outgrow max_trace_response_bytes stop with -32000 naming it; the node stays up', async (t) => {
  const node = await spawnDev(
    t,
    { 'evm.max_trace_response_bytes': String(LIMIT) },
    { env: { NODE_OPTIONS: '--max-old-space-size=512' } },
  );
  const probe = new BlockNumberProbe(t, node.http);
  let id = 0;
  const traceCall = (data: string, options: object) =>
    post(
      node.http,
      { jsonrpc: '2.0', id: ++id, method: 'debug_traceCall', params: [{ data }, 'latest', options] },
      undefined,
      120_000,
    );

  const abusive: [string, string, object][] = [
    // JUMPDEST PUSH1 1 MSIZE MSTORE PUSH1 0 JUMP: memory grows by a word per turn
    ['memory loop with enableMemory', '0x5b6001595260005600', { enableMemory: true }],
    // JUMPDEST PUSH1 0 JUMP until the 10M gas run out: 800,000 struct logs
    ['endless loop, struct logs', '0x5b600056', {}],
    // JUMPDEST PUSH3 0x10000 PUSH1 0 LOG0 PUSH1 0 JUMP: 64 KiB logs, traced with their data
    [
      '64 KiB logs, callTracer withLog',
      '0x5b620100006000a0600056',
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ],
  ];
  for (const [what, data, options] of abusive) {
    const t0 = performance.now();
    const r = await traceCall(data, options);
    t.diagnostic(`${what}: answered in ${Math.round(performance.now() - t0)} ms`);
    assert.deepEqual(
      r.error,
      { code: -32000, message: TOO_LARGE },
      `${what}: ${JSON.stringify(r).slice(0, 300)}`,
    );
  }

  // geth's limit option still bounds the struct logger, within the budget
  const limited = await traceCall('0x5b600056', { limit: 100 });
  assert.equal(limited.result?.structLogs?.length, 100, JSON.stringify(limited).slice(0, 300));
  assert.equal(limited.result.failed, true);
  // a trace within the budget answers in full
  const small = await traceCall('0x600160020100', {});
  assert.deepEqual(
    small.result.structLogs.map((l: { op: string }) => l.op),
    ['PUSH1', 'PUSH1', 'ADD', 'STOP'],
  );

  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the traces: ${JSON.stringify(report)}`);
  assert.ok(alive(node), 'the node is up');
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});
