import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, outcomeOf, RpcMetrics } from '../../../../src/rpc/server/metrics.ts';

/** What the same calls give when recorded through prom-client's own Counter and Histogram. */
function reference(calls: [string, number | undefined, number][]): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ chain_id: 'c-1' });
  const requests = new Counter({
    name: 'chaind_rpc_requests_total',
    help: 'JSON-RPC requests answered, by method and outcome',
    labelNames: ['method', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'chaind_rpc_request_duration_seconds',
    help: 'Time to answer a JSON-RPC request, by method',
    labelNames: ['method'],
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  for (const [method, code, seconds] of calls) {
    requests.inc({ method, outcome: outcomeOf(code) });
    duration.observe({ method }, seconds);
  }
  return registry;
}

const CALLS: [string, number | undefined, number][] = [
  ['eth_blockNumber', undefined, 0.00004],
  ['eth_blockNumber', undefined, 0.0001], // on a bound: counted in that bucket
  ['eth_call', 3, 0.02],
  ['eth_call', undefined, 0.7],
  ['unknown', -32601, 0.00002],
  ['eth_getLogs', -32603, 42], // above every bound: only in +Inf
  ['eth_getBalance', -32602, 0.003],
  ['eth_blockNumber', undefined, 0.004],
];

/** The exposition's lines in order of text: the order of a family's series is not part of the format. */
async function lines(registry: { metrics(): Promise<string> }): Promise<string[]> {
  return (await registry.metrics()).split('\n').sort();
}

function recorded(calls: [string, number | undefined, number][]): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ chain_id: 'c-1' });
  const metrics = new RpcMetrics(registry);
  for (const [method, code, seconds] of calls) metrics.record(method, code, seconds);
  return registry;
}

test('the exposition is what prom-client’s own counter and histogram give for the same calls', async () => {
  assert.deepEqual(await lines(recorded(CALLS)), await lines(reference(CALLS)));
  assert.deepEqual(await lines(recorded([])), await lines(reference([])));
});

test('calls recorded after a read add to what was read', async () => {
  const registry = new Registry();
  registry.setDefaultLabels({ chain_id: 'c-1' });
  const metrics = new RpcMetrics(registry);
  for (const [method, code, seconds] of CALLS) metrics.record(method, code, seconds);
  await registry.metrics();
  const more = CALLS.slice(0, 3);
  for (const [method, code, seconds] of more) metrics.record(method, code, seconds);
  assert.deepEqual(await lines(registry), await lines(reference([...CALLS, ...more])));
});

test('the JSON form aggregates across threads as prom-client’s own metrics do', async () => {
  const half = CALLS.slice(0, 4);
  const rest = CALLS.slice(4);
  const ours = AggregatorRegistry.aggregate([
    await recorded(half).getMetricsAsJSON(),
    await recorded(rest).getMetricsAsJSON(),
  ]);
  const theirs = AggregatorRegistry.aggregate([
    await reference(half).getMetricsAsJSON(),
    await reference(rest).getMetricsAsJSON(),
  ]);
  assert.deepEqual(await lines(ours), await lines(theirs));
  // the fields a reader of the JSON form uses (prom-client adds an empty exemplar to its buckets)
  const json = async (r: Registry) =>
    (await r.getMetricsAsJSON()).map(({ name, help, type, aggregator, values }) => ({
      name,
      help,
      type,
      aggregator,
      values: values
        .map((v) => {
          const { metricName } = v as { metricName?: string };
          const labels = Object.entries(v.labels).sort(([a], [b]) => a.localeCompare(b));
          return JSON.stringify([metricName, labels, v.value]);
        })
        .sort(),
    }));
  assert.deepEqual(await json(recorded(CALLS)), await json(reference(CALLS)));
});

test('resetting the registry zeroes the histogram and the counter', async () => {
  const registry = recorded(CALLS);
  await registry.metrics();
  registry.resetMetrics();
  assert.deepEqual(await lines(registry), await lines(reference([])));
});

test('a reset drops the counts recorded since the last read too', async () => {
  const registry = recorded(CALLS);
  registry.resetMetrics();
  assert.deepEqual(await lines(registry), await lines(reference([])));
});
