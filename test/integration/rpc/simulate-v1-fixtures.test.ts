/**
 * eth_simulateV1 against the execution-apis conformance fixtures (`.io` files: one request `>>`
 * and geth's answer `<<` each). They were generated on geth's test chain, whose genesis
 * accounts, block hashes, heights and times are not this chain's, so a fixture is re-bound to this
 * node (see `rebind`: geth's head is read from ethSimulate-simple's answer, the block after it),
 * which runs with geth's default gas cap, and compared on what does not depend on that chain:
 *   - an error answer: its code;
 *   - a result: the number of blocks, and for each call its status, return data, gas used, logs
 *     (address, topics, data) and error code.
 * The fixtures are public test data, not part of the repository: the test reads them from the
 * execution-apis checkout $EXECUTION_APIS_TESTS names and is skipped without it. The fixtures
 * expected to fail here, each with its reason, are the table in docs/operators/simulate.md: the test
 * fails if one of them passes or any other fails, so the table stays true.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rpc, rpcNode } from './rpc-helpers.ts';

const ROOT = process.env.EXECUTION_APIS_TESTS ?? '';
const skip =
  ROOT === '' &&
  'EXECUTION_APIS_TESTS is not set: set it to a checkout of github.com/ethereum/execution-apis ' +
    '(its tests/eth_simulateV1 holds the fixtures); .ci/run sets it when one is given to CI';
const DOC = new URL('../../../docs/operators/simulate.md', import.meta.url);

/** The expected failures: the doc's table rows `| ethSimulate-… | reason |`. */
function expectedFailures(): Map<string, string> {
  const rows = readFileSync(DOC, 'utf8').matchAll(/^\| `(ethSimulate-[^`]+)` \| (.+) \|$/gm);
  return new Map([...rows].map((m) => [m[1]!, m[2]!]));
}

interface Call {
  status?: string;
  returnData?: string;
  gasUsed?: string;
  logs?: { address: string; topics: string[]; data: string }[];
  error?: { code: number };
}

/** What a call's comparison looks at (see the file comment). */
const comparable = (c: Call) => ({
  status: c.status,
  returnData: c.returnData,
  gasUsed: c.gasUsed,
  logs: (c.logs ?? []).map((l) => ({ address: l.address.toLowerCase(), topics: l.topics, data: l.data })),
  error: c.error?.code,
});

/** Why `got` differs from geth's `want`, or undefined when they agree. */
function compare(want: any, got: any): string | undefined {
  if (want.error) {
    if (!got.error) return `geth answers error ${want.error.code}; this node a result`;
    return got.error.code === want.error.code
      ? undefined
      : `error ${got.error.code} (${got.error.message}); geth ${want.error.code} (${want.error.message})`;
  }
  if (got.error) return `error ${got.error.code} (${got.error.message}); geth answers a result`;
  const w = want.result as { calls: Call[] }[];
  const g = got.result as { calls: Call[] }[];
  if (w.length !== g.length) return `${g.length} blocks; geth ${w.length}`;
  for (const [i, block] of w.entries()) {
    if (block.calls.length !== g[i]!.calls.length) return `block ${i}: ${g[i]!.calls.length} calls`;
    for (const [j, call] of block.calls.entries()) {
      const a = comparable(g[i]!.calls[j]!);
      const b = comparable(call);
      try {
        assert.deepEqual(a, b);
      } catch {
        return `block ${i} call ${j}: ${JSON.stringify(a)}; geth ${JSON.stringify(b)}`;
      }
    }
  }
  return undefined;
}

interface Head {
  number: bigint;
  time: bigint;
}

const read = (dir: string, name: string) => {
  const lines = readFileSync(join(dir, `${name}.io`), 'utf8').split('\n');
  return {
    request: JSON.parse(lines.find((l) => l.startsWith('>>'))!.slice(2)),
    response: JSON.parse(lines.find((l) => l.startsWith('<<'))!.slice(2)),
  };
};

/** geth's head when the fixtures were made: the parent of ethSimulate-simple's one block (12 s before it). */
function gethHead(dir: string): Head {
  const [block] = read(dir, 'ethSimulate-simple').response.result;
  return { number: BigInt(block.number) - 1n, time: BigInt(block.timestamp) - 12n };
}

async function head(url: string): Promise<Head> {
  const b = (await rpc(url, 'eth_getBlockByNumber', ['latest', false])).result as {
    number: string;
    timestamp: string;
  };
  return { number: BigInt(b.number), time: BigInt(b.timestamp) };
}

const AHEAD = 1000n;
const hexOf = (n: bigint) => '0x' + n.toString(16);

/**
 * The request on this chain: heights stay geth's (this chain is past geth's head when the fixtures
 * run, and the head is the block at geth's head height), a height above geth's head stays above
 * this chain's, a tag or hash names geth's head height, and times move by the distance between geth's
 * head and the block of that height here.
 */
function rebind(params: any[], geth: Head, at: Head, latest: bigint): unknown[] {
  const [opts, ref, ...rest] = params;
  const blocks = (opts?.blockStateCalls ?? []).map((b: any) => {
    const o = b?.blockOverrides;
    if (!o || typeof o.time !== 'string') return b;
    return { ...b, blockOverrides: { ...o, time: hexOf(BigInt(o.time) - geth.time + at.time) } };
  });
  const out: unknown[] = [
    opts && Array.isArray(opts.blockStateCalls) ? { ...opts, blockStateCalls: blocks } : opts,
  ];
  if (ref === undefined) return out;
  let height = geth.number;
  if (typeof ref === 'string' && /^0x[0-9a-f]{1,16}$/i.test(ref)) {
    const n = BigInt(ref);
    // with a margin: this chain makes blocks every few ms, and the height must still be unknown here
    height = n > geth.number ? latest + AHEAD + (n - geth.number) : n;
  }
  return [...out, hexOf(height), ...rest];
}

test('eth_simulateV1 conformance fixtures', { skip }, async (t) => {
  const dir = join(ROOT, 'tests', 'eth_simulateV1');
  // a path that names nothing is a broken setup, not missing data: fail rather than skip
  assert.ok(existsSync(dir), `EXECUTION_APIS_TESTS names ${ROOT}, which has no tests/eth_simulateV1`);
  const expected = expectedFailures();
  // geth's default RPCGasCap, which the fixtures' calls without gas were given
  const { url } = await rpcNode(t, { 'evm.simulation_gas_limit': '50000000' });
  const passed: string[] = [];
  const failed = new Map<string, string>();
  const geth = gethHead(dir);
  // blocks every few ms: wait until this chain holds every height the fixtures name
  while ((await head(url)).number <= geth.number) await new Promise((r) => setTimeout(r, 50));
  const at = (await rpc(url, 'eth_getBlockByNumber', [hexOf(geth.number), false])).result as {
    timestamp: string;
  };
  const base = { number: geth.number, time: BigInt(at.timestamp) };
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.io'))
    .sort();
  for (const file of files) {
    const name = file.slice(0, -3);
    const { request, response: want } = read(dir, name);
    const got = await rpc(url, request.method, rebind(request.params, geth, base, (await head(url)).number));
    const why = compare(want, got);
    if (why === undefined) passed.push(name);
    else failed.set(name, why);
  }
  t.diagnostic(`${passed.length} of ${files.length} fixtures pass; ${failed.size} fail`);
  if (process.env.SIMULATE_FIXTURES_REPORT)
    for (const [name, why] of failed) t.diagnostic(`${name}: ${why.slice(0, 400)}`);
  const unexpected = [...failed.keys()].filter((n) => !expected.has(n));
  const fixed = passed.filter((n) => expected.has(n));
  assert.deepEqual(
    unexpected.map((n) => `${n}: ${failed.get(n)}`),
    [],
    'fixtures failing that the doc does not list',
  );
  assert.deepEqual(fixed, [], 'fixtures the doc lists as failing that pass: take them off the list');
  const unknown = [...expected.keys()].filter((n) => !files.includes(`${n}.io`));
  assert.deepEqual(unknown, [], 'fixtures the doc lists that do not exist');
});
