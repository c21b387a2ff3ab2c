/**
 * /metrics as operators' tools read it. `promtool check metrics` (Debian's `prometheus` package, which
 * .ci/run installs) accepts a spawned `chaind dev` node's exposition and a network-mode node's, where
 * CometBFT's series are merged in (src/node/metrics-merge.ts). Every PromQL expression of the Grafana
 * dashboard (docs/grafana/chaind.json) names only metrics the dev node serves, or the network-mode
 * families from CometBFT listed below, which the network node is checked to serve.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GAUGES_NAMED_TOTAL } from '../../src/node/consensus-services.ts';
import { ChaindProcess, tempHome } from '../helpers/chaind.ts';
import { cometbftOrSkip, TestNetwork } from '../helpers/network.ts';

const DASHBOARD = join(import.meta.dirname, '../../docs/grafana/chaind.json');

/** Series the dashboard graphs that only a network-mode node serves: CometBFT's, merged in. */
const NETWORK_ONLY = [
  'tendermint_p2p_peers',
  'tendermint_consensus_rounds',
  'tendermint_consensus_missing_validators',
  'tendermint_consensus_block_size_bytes',
];

function promtoolOrSkip(t: { skip(msg: string): void }): boolean {
  if (spawnSync('promtool', ['--version']).status === 0) return true;
  if (process.env.CI) throw new Error('promtool is not installed: .ci/run installs the prometheus package');
  t.skip('promtool is not installed (Debian: apt-get install prometheus)');
  return false;
}

/** `promtool check metrics` on an exposition: its exit code and what it printed. */
function promtool(exposition: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** The sample names of an exposition (histograms as their _bucket/_sum/_count series). */
function sampleNames(exposition: string): Set<string> {
  return new Set(
    exposition
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => l.split(/[{ ]/)[0]),
  );
}

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'and',
  'or',
  'unless',
]);

/**
 * The metric names a PromQL expression selects: what is left once strings, label matchers, range
 * and subquery brackets and grouping label lists are gone, minus functions (a name before `(`),
 * keywords and numbers.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    if (
      bare
        .slice(m.index + m[0].length)
        .trimStart()
        .startsWith('(')
    )
      continue;
    if (PROMQL_KEYWORDS.has(m[0])) continue;
    names.push(m[0]);
  }
  return names;
}

/** Every PromQL expression of the dashboard: panel targets and `label_values(...)` variables. */
function dashboardExpressions(): { where: string; expr: string }[] {
  const dash = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
  const out: { where: string; expr: string }[] = [];
  for (const p of dash.panels)
    for (const target of p.targets ?? [])
      out.push({ where: `panel "${p.title}" ${target.refId}`, expr: target.expr });
  for (const v of dash.templating.list) {
    const q = /^label_values\((.*),\s*\w+\)$/.exec(v.query?.query ?? '');
    if (q) out.push({ where: `variable ${v.name}`, expr: q[1] });
  }
  return out;
}

test('the PromQL name extraction the dashboard check relies on', () => {
  assert.deepEqual(
    metricNames(
      'histogram_quantile(0.95, sum by (method, le) (rate(a_bucket{m="x{y}", n=~"$i"}[$__rate_interval])))',
    ),
    ['a_bucket'],
  );
  assert.deepEqual(metricNames('max by (c) (h{c="$c"}) - on (c) group_right h'), ['h', 'h']);
  assert.deepEqual(metricNames('rate(s_sum[5m]) / rate(s_count[5m:1m]) > bool 0'), ['s_sum', 's_count']);
});

test('a dev node: /metrics passes promtool check metrics; the dashboard graphs only what it serves', async (t) => {
  const node = new ChaindProcess(['dev', '--home', tempHome(t)]);
  t.after(() => node.stop('SIGKILL'));
  const line = await node.waitForLine((l) => l.includes('metrics listening'), 60_000);
  const metricsUrl = `http://${/address=(\S+)/.exec(line)![1]}/metrics`;
  await node.waitForLine((l) => l.includes('committed block height=2 '));
  // a JSON-RPC call, so the per-method RPC series exist
  const evmUrl = (await node.waitForLine((l) => /^ {2}EVM JSON-RPC +http/.test(l))).trim().split(/\s+/)[2];
  await fetch(evmUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  const exposition = await (await fetch(metricsUrl)).text();
  const served = sampleNames(exposition);

  await t.test('promtool check metrics', (t) => {
    if (!promtoolOrSkip(t)) return;
    const r = promtool(exposition);
    assert.equal(r.status, 0, `promtool check metrics:\n${r.output}`);
  });

  await t.test('the families renamed or left out for promtool', () => {
    for (const name of GAUGES_NAMED_TOTAL) assert.ok(!served.has(name), `${name} is served`);
    assert.ok(served.has('nodejs_active_handles'));
    assert.match(exposition, /^# TYPE tendermint_consensus_validator_missed_blocks gauge$/m);
    assert.ok(served.has('tendermint_consensus_lag_blocks'));
    assert.match(
      exposition,
      /^tendermint_storage_size_bytes\{store="blockstore",chain_id="chaind-dev"\} [1-9]\d*$/m,
    );
  });

  await t.test('every PromQL expression of the dashboard names only served metrics', () => {
    const known = new Set([...served, ...NETWORK_ONLY]);
    const expressions = dashboardExpressions();
    assert.ok(expressions.length >= 20, `${expressions.length} expressions`);
    for (const { where, expr } of expressions) {
      const names = metricNames(expr);
      assert.ok(names.length > 0, `${where}: no metric in ${expr}`);
      for (const name of names) assert.ok(known.has(name), `${where}: ${name} is not served (${expr})`);
    }
  });
});

test('a network-mode node: /metrics with CometBFT’s series merged in passes promtool check metrics', async (t) => {
  if (!cometbftOrSkip(t)) return;
  // a validator and a full node: each has a peer, so CometBFT's p2p series exist
  const net = await TestNetwork.create(t, { validators: 1, rpcNodes: 1 });
  const [name, other] = net.names;
  net.startAll();
  await net.waitHeight(name, 3);
  await net.waitHeight(other, 3);
  const exposition = await (await fetch(`http://127.0.0.1:${net.node(name).ports.metrics}/metrics`)).text();
  const served = sampleNames(exposition);
  for (const family of NETWORK_ONLY) assert.ok(served.has(family), `${family} is not served in network mode`);
  // CometBFT's counters, served with _total
  assert.ok(served.has('tendermint_consensus_proposal_receive_count_total'));
  assert.match(exposition, /^# TYPE tendermint_consensus_validator_missed_blocks gauge$/m);
  if (!promtoolOrSkip(t)) return;
  const r = promtool(exposition);
  assert.equal(r.status, 0, `promtool check metrics:\n${r.output}`);
});
