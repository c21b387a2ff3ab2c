/**
 * Seeded fuzzing of the EVM JSON-RPC over HTTP (fast path and node:http) and WebSocket: thousands of
 * malformed or odd requests — broken JSON, deep nesting, wrong envelopes, odd ids, batches, and every
 * served method with parameters of the wrong type, size or shape. The node must stay up, every
 * answer must be a JSON-RPC envelope (or nothing, for notifications), and no input may be answered
 * -32603 (internal error), which is kept for faults of the node. The seed is fixed (FUZZ_SEED
 * overrides it to explore); a failure names the request that caused it.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import WebSocket from 'ws';
import { alive, BlockNumberProbe, spawnDev } from '../helpers/abuse.ts';
import { seededRandom } from '../helpers/random.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 0x15f00d);
const HTTP_REQUESTS = 3_000;
const WS_REQUESTS = 2_000;

const METHODS = [
  'debug_traceBlockByHash',
  'debug_traceBlockByNumber',
  'debug_traceCall',
  'debug_traceTransaction',
  'eth_accounts',
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_coinbase',
  'eth_createAccessList',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_getUncleByBlockHashAndIndex',
  'eth_getUncleByBlockNumberAndIndex',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_maxPriorityFeePerGas',
  'eth_newBlockFilter',
  'eth_newFilter',
  'eth_newPendingTransactionFilter',
  'eth_sendRawTransaction',
  'eth_syncing',
  'eth_uninstallFilter',
  'net_listening',
  'net_version',
  'web3_clientVersion',
  'web3_sha3',
  // WebSocket only, legacy (some gated), unknown
  'eth_subscribe',
  'eth_unsubscribe',
  'chain_getChainAddress',
  'chain_getEVMAddress',
  'chain_getCosmosTx',
  'chain_getBlockByNumber',
  'eth_nosuchmethod',
  '',
];

/** Methods whose handlers do the most with their parameters: drawn more often. */
const HEAVY = [
  'eth_call',
  'eth_estimateGas',
  'eth_createAccessList',
  'debug_traceCall',
  'eth_getLogs',
  'eth_newFilter',
  'eth_feeHistory',
  'eth_sendRawTransaction',
  'eth_getProof',
  'eth_subscribe',
];

const KEYS = [
  'from',
  'to',
  'data',
  'input',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'nonce',
  'accessList',
  'authorizationList',
  'blobVersionedHashes',
  'chainId',
  'type',
  'address',
  'topics',
  'fromBlock',
  'toBlock',
  'blockHash',
  'blockNumber',
  'requireCanonical',
  'tracer',
  'tracerConfig',
  'timeout',
  'enableMemory',
  'disableStack',
  'disableStorage',
  'enableReturnData',
  'stateOverrides',
  'code',
  'balance',
  'state',
  'stateDiff',
  'storageKeys',
  'onlyTopCall',
  'withLog',
  '__proto__',
  'constructor',
];

/** A generator of odd values from one seeded stream. */
function fuzzer(seed: number) {
  const rnd = seededRandom(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const hex = (bytes: number) =>
    '0x' + Array.from({ length: bytes }, () => int(256).toString(16).padStart(2, '0')).join('');
  const strings = (): string =>
    pick([
      () => hex(int(4) === 0 ? 0 : pick([1, 8, 20, 32, 33, 64, 200])),
      () => '0x' + 'f'.repeat(pick([1, 15, 16, 17, 63, 64, 65, 80])),
      () => '0x' + '0'.repeat(int(70)),
      () => '0x' + int(2 ** 31).toString(16),
      () => int(2 ** 31).toString(),
      () => pick(['latest', 'earliest', 'pending', 'safe', 'finalized', 'Latest', 'LATEST', 'none']),
      () => pick(['', '0x', '0X1', '0x-1', '-0x1', '0xg', ' 0x1', '0x1 ', '0x0001', '00', 'null', 'true']),
      () => pick(['callTracer', 'prestateTracer', '4byteTracer', 'noopTracer', 'flatCallTracer', 'jsTracer']),
      () => pick(['1s', '10ms', '-1s', '1h', 'forever', '0']),
      () => '\u0000\ud800\uffff😀'.repeat(int(4)),
      () => 'x'.repeat(pick([1, 100, 10_000])),
    ])();
  const numbers = (): number =>
    pick([0, -1, 1, 2 ** 53, 2 ** 64, -(2 ** 63), 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER, int(1000)]);
  const value = (depth: number): unknown => {
    const k = int(depth > 4 ? 6 : 9);
    if (k === 0) return null;
    if (k === 1) return rnd() < 0.5;
    if (k === 2) return numbers();
    if (k <= 5) return strings();
    if (k <= 6) return Array.from({ length: int(5) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = int(6); i > 0; i--) o[rnd() < 0.85 ? pick(KEYS) : strings()] = value(depth + 1);
    return o;
  };
  const params = (): unknown =>
    pick([
      () => Array.from({ length: int(5) }, () => value(1)),
      () => Array.from({ length: int(3) }, () => value(1)),
      () => [strings(), strings()],
      () => [value(1), pick(['latest', '0x0', '0x1', 'pending']), value(1)],
      () => value(1),
      () => undefined,
      () => Array.from({ length: int(40) }, () => value(3)),
    ])();
  const id = (): unknown =>
    rnd() < 0.8
      ? int(1_000_000)
      : pick([
          () => 'id-' + int(1000),
          () => null,
          () => undefined,
          () => ({ a: 1 }),
          () => [1],
          () => true,
          () => 1.5,
          () => -1,
          () => 'x'.repeat(300),
        ])();
  // Edge values of the wire types: what a codec must refuse or clamp, never crash on.
  const edge = (): unknown =>
    pick([
      '0x0',
      '0x1',
      '0x7fffffffffffffff',
      '0xffffffffffffffff',
      '0x10000000000000000',
      '0x' + 'f'.repeat(64),
      '0x' + 'f'.repeat(65),
      '0x-1',
      '0x',
      '0x01',
      -1,
      2 ** 64,
      1.5,
      'latest',
      'pending',
      'earliest',
      '0x' + '11'.repeat(20),
      '0x' + '22'.repeat(32),
      hex(int(64)),
      [],
      {},
      null,
    ]);
  // Plausible requests are valid but for a few odd leaves: mostly one (see `mutateOne`), so the
  // odd value reaches the code that handles it instead of a check of another field failing first.
  const ODD = 0.03;
  const address = () => (rnd() > ODD ? '0x' + pick(['00', 'f3', 'aa', 'de']).repeat(20) : edge());
  const hash = () => (rnd() > ODD ? '0x' + pick(['00', '11', 'ab']).repeat(32) : edge());
  const tag = () =>
    rnd() > ODD ? pick(['latest', 'earliest', 'pending', 'safe', 'finalized', '0x0', '0x1', '0x5']) : edge();
  /** Quantities of a valid form, often at the edge of a 64-bit or 256-bit range. */
  const qty = () =>
    rnd() < ODD
      ? edge()
      : pick([
          '0x0',
          '0x1',
          '0x5208',
          '0x3b9aca00',
          '0x' + int(2 ** 24).toString(16),
          '0x7fffffffffffffff',
          '0xffffffffffffffff',
          '0x10000000000000000',
          '0x' + 'f'.repeat(64),
        ]);
  /** Replaces one value somewhere inside `v` (an array or object) with an edge value. */
  const mutateOne = (v: unknown[]): unknown[] => {
    const slots: [Record<string | number, unknown>, string | number][] = [];
    const walk = (x: unknown) => {
      if (x === null || typeof x !== 'object') return;
      for (const k of Object.keys(x)) {
        slots.push([x as Record<string, unknown>, Array.isArray(x) ? Number(k) : k]);
        walk((x as Record<string, unknown>)[k]);
      }
    };
    walk(v);
    if (slots.length > 0) {
      const [parent, key] = pick(slots);
      parent[key] = edge();
    }
    return v;
  };
  const callObject = () => {
    const o: Record<string, unknown> = {};
    for (const [k, make] of [
      ['from', address],
      ['to', address],
      [
        'data',
        () =>
          rnd() < 0.5 ? pick(['0x', '0x00', '0x5b600056', '0x60006000fd', '0x6001600055']) : hex(int(100)),
      ],
      ['gas', qty],
      ['gasPrice', qty],
      ['maxFeePerGas', qty],
      ['maxPriorityFeePerGas', qty],
      ['value', qty],
      ['nonce', qty],
      ['input', () => hex(int(8))],
      ['accessList', () => [{ address: address(), storageKeys: [hash()] }]],
      ['chainId', () => '0xae3f2'],
      ['type', () => pick(['0x0', '0x1', '0x2', '0x4'])],
    ] as const)
      if (rnd() < 0.2) o[k] = make();
    return o;
  };
  const traceOptions = () =>
    rnd() < 0.3
      ? edge()
      : Object.fromEntries(
          (
            [
              [
                'tracer',
                () =>
                  pick([
                    'callTracer',
                    'prestateTracer',
                    '4byteTracer',
                    'noopTracer',
                    'flatCallTracer',
                    'js',
                    edge(),
                  ]),
              ],
              ['timeout', () => pick(['1s', '100ms', '-1s', '1h', 'x', edge()])],
              ['enableMemory', () => pick([true, false, edge()])],
              ['disableStack', () => pick([true, false, edge()])],
              [
                'tracerConfig',
                () => pick([{ onlyTopCall: true }, { withLog: true }, { diffMode: true }, edge()]),
              ],
            ] as const
          )
            .filter(() => rnd() < 0.5)
            .map(([k, make]) => [k, make()]),
        );
  const logFilter = () =>
    rnd() < 0.2
      ? edge()
      : Object.fromEntries(
          (
            [
              ['fromBlock', tag],
              ['toBlock', tag],
              ['blockHash', hash],
              ['address', () => pick([address(), [address(), address()], edge()])],
              [
                'topics',
                () => pick([[hash()], [null, [hash(), hash()]], [[], hash()], Array(5).fill(hash()), edge()]),
              ],
            ] as const
          )
            .filter(() => rnd() < 0.4)
            .map(([k, make]) => [k, make()]),
        );
  /** Parameters shaped as the method takes them, one of them often odd. */
  const plausible = (method: string): unknown[] => {
    const templates: Record<string, () => unknown[]> = {
      eth_getBalance: () => [address(), tag()],
      eth_getCode: () => [address(), tag()],
      eth_getTransactionCount: () => [address(), tag()],
      eth_getStorageAt: () => [address(), hash(), tag()],
      eth_getProof: () => [address(), [hash()], tag()],
      eth_call: () => [
        callObject(),
        tag(),
        rnd() < 0.3 ? { [String(address())]: { code: edge(), balance: edge(), nonce: edge() } } : undefined,
      ],
      eth_estimateGas: () => [callObject(), tag()],
      eth_createAccessList: () => [callObject(), tag()],
      debug_traceCall: () => [callObject(), tag(), traceOptions()],
      debug_traceTransaction: () => [hash(), traceOptions()],
      debug_traceBlockByNumber: () => [tag(), traceOptions()],
      debug_traceBlockByHash: () => [hash(), traceOptions()],
      eth_getBlockByNumber: () => [tag(), pick([true, false, edge()])],
      eth_getBlockByHash: () => [hash(), pick([true, false, edge()])],
      eth_getBlockReceipts: () => [tag()],
      eth_getLogs: () => [logFilter()],
      eth_newFilter: () => [logFilter()],
      eth_feeHistory: () => [
        pick(['0x1', '0x400', '0x401', edge()]),
        tag(),
        pick([[], [25, 75], [101], [50, 10], edge()]),
      ],
      eth_getTransactionByHash: () => [hash()],
      eth_getTransactionReceipt: () => [hash()],
      eth_getTransactionByBlockNumberAndIndex: () => [tag(), edge()],
      eth_getTransactionByBlockHashAndIndex: () => [hash(), edge()],
      eth_sendRawTransaction: () => [pick([hex(int(200)), '0x02' + hex(int(100)).slice(2), edge()])],
      web3_sha3: () => [pick([hex(int(64)), edge()])],
      eth_getFilterChanges: () => [pick(['0x1', hex(16), edge()])],
      eth_uninstallFilter: () => [pick(['0x1', hex(16), edge()])],
      eth_subscribe: () => [
        pick(['newHeads', 'logs', 'newPendingTransactions', 'syncing', edge()]),
        pick([logFilter(), true, undefined]),
      ],
      eth_unsubscribe: () => [pick(['0x1', hex(16), edge()])],
      chain_getChainAddress: () => [address()],
      chain_getEVMAddress: () => [pick(['chain1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq', edge()])],
      chain_getCosmosTx: () => [hash()],
    };
    const ps = (templates[method] ?? (() => []))();
    while (ps.length > 0 && ps[ps.length - 1] === undefined) ps.pop();
    return rnd() < 0.7 ? mutateOne(ps) : ps;
  };
  const requestObject = (): unknown => {
    const o: Record<string, unknown> = {};
    if (rnd() < 0.97) o.jsonrpc = '2.0';
    else o.jsonrpc = pick(['1.0', 2, null, '2.00']);
    if (rnd() < 0.95) o.method = rnd() < 0.3 ? pick(HEAVY) : pick(METHODS);
    else o.method = value(2);
    const ps = rnd() < 0.75 && typeof o.method === 'string' ? plausible(o.method) : params();
    if (ps !== undefined) o.params = ps;
    const i = id();
    if (i !== undefined || rnd() < 0.1) o.id = i ?? null;
    return o;
  };
  /** One body: usually a request or a batch, sometimes broken JSON or far too deep. */
  const body = (): string =>
    pick([
      ...Array<() => string>(10).fill(() => JSON.stringify(requestObject())),
      () => JSON.stringify(Array.from({ length: int(6) }, () => requestObject())),
      () => JSON.stringify([requestObject(), value(1), [requestObject()]]),
      () => JSON.stringify(value(0)) ?? 'null',
      () => JSON.stringify(requestObject()).slice(0, -1 - int(10)),
      () => JSON.stringify(requestObject()) + pick([' ', ']', '}{', 'x', '\u0000']),
      () => '\ufeff' + JSON.stringify(requestObject()),
      () => pick(['', '[]', '{}', '[[]]', 'null', '1', '"x"', '{"jsonrpc":"2.0"', ']', '\u0000']),
      () => {
        const depth = 70 + int(30_000);
        return `{"jsonrpc":"2.0","id":1,"method":"${pick(METHODS)}","params":${'['.repeat(depth)}${']'.repeat(depth - (rnd() < 0.2 ? 1 : 0))}}`;
      },
      () =>
        `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x${'0'.repeat(40)}",${'{"a":'.repeat(100)}1${'}'.repeat(100)}]}`,
    ])();
  return { body };
}

/** How many answers a body gets: per request object with an `id` member (a batch: an array of them). */
function expected(text: string): 'none' | 'one' | 'batch' {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'one';
  }
  const answered = (m: unknown) => m === null || typeof m !== 'object' || Array.isArray(m) || 'id' in m;
  if (Array.isArray(v)) {
    if (v.length === 0) return 'one';
    return v.some(answered) ? 'batch' : 'none';
  }
  return answered(v) ? 'one' : 'none';
}

/** Answers seen, by outcome (`result`, or the error code), for the diagnostics. */
const outcomes = new Map<string, number>();

/** Every problem with one answer to `text` (an empty list: fine). */
function check(text: string, answer: string | undefined): string[] {
  const want = expected(text);
  if (answer === undefined || answer === '') return want === 'none' ? [] : [`no answer (want ${want})`];
  let v: unknown;
  try {
    v = JSON.parse(answer);
  } catch {
    return [`answer is not JSON: ${answer.slice(0, 200)}`];
  }
  const envelopes = Array.isArray(v) ? v : [v];
  if (Array.isArray(v) && want !== 'batch') {
    // a body the depth check refused before parsing is answered with one error, as any too-large batch
  }
  const problems: string[] = [];
  if (want === 'none') problems.push('an answer to notifications only');
  for (const e of envelopes) {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) {
      problems.push(`not an envelope: ${JSON.stringify(e)}`);
      continue;
    }
    const r = e as Record<string, unknown>;
    if (r.jsonrpc !== '2.0') problems.push(`jsonrpc is ${JSON.stringify(r.jsonrpc)}`);
    if (!('id' in r) || !(r.id === null || typeof r.id === 'string' || typeof r.id === 'number'))
      problems.push(`bad id ${JSON.stringify(r.id)}`);
    if ('result' in r === 'error' in r) problems.push('not exactly one of result and error');
    const outcome = 'error' in r ? String((r.error as { code?: unknown } | null)?.code) : 'result';
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    if ('error' in r) {
      const err = r.error as Record<string, unknown> | null;
      if (!err || !Number.isInteger(err.code) || typeof err.message !== 'string')
        problems.push(`bad error object ${JSON.stringify(err)}`);
      else if (err.code === -32603) problems.push(`-32603 ${JSON.stringify(err.message)}`);
    }
  }
  return problems;
}

function post(
  port: number,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', reject);
    req.end(body);
  });
}

test(`seeded fuzz (seed ${SEED}): ${HTTP_REQUESTS} HTTP and ${WS_REQUESTS} WebSocket requests, every answer an envelope, never -32603`, async (t) => {
  const node = await spawnDev(t, {
    'evm.simulation_evm_timeout': '2s',
    'evm.trace_timeout': '2s',
    // every served chain_ method, so the fuzz reaches them
    'evm.enabled_legacy_chain_apis': 'chain_getChainAddress,chain_getEVMAddress,chain_getCosmosTx',
  });
  t.diagnostic(`seed ${SEED} (set FUZZ_SEED to explore others)`);
  const probe = new BlockNumberProbe(t, node.http);
  const failures: string[] = [];
  const fail = (where: string, text: string, problems: string[]) => {
    if (problems.length > 0 && failures.length < 20)
      failures.push(`${where}: ${problems.join('; ')}\n  request: ${text.slice(0, 400)}`);
  };

  const f = fuzzer(SEED);
  for (let i = 0; i < HTTP_REQUESTS; i++) {
    const text = f.body();
    // one in four goes through node:http (an Origin header hands the request over)
    const viaNodeHttp = i % 4 === 3;
    const res = await post(node.ports.http, text, viaNodeHttp ? { origin: 'https://fuzz.example' } : {});
    if (res.status !== 200) fail(`HTTP #${i}`, text, [`status ${res.status}: ${res.text.slice(0, 200)}`]);
    else fail(`HTTP #${i}${viaNodeHttp ? ' (node:http)' : ''}`, text, check(text, res.text));
    assert.ok(alive(node), `the node exited after HTTP request #${i}: ${text.slice(0, 400)}`);
  }

  const ws = new WebSocket(node.ws);
  t.after(() => ws.terminate());
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const inbox: string[] = [];
  let wake: (() => void) | undefined;
  ws.on('message', (m) => {
    const s = String(m);
    // subscription notifications the fuzz may have started arrive at any time
    if (s.startsWith('{"jsonrpc":"2.0","method":"eth_subscription"')) return;
    inbox.push(s);
    wake?.();
  });
  const next = (ms: number) =>
    inbox.length > 0
      ? Promise.resolve(inbox.shift())
      : new Promise<string | undefined>((resolve) => {
          const timer = setTimeout(() => {
            wake = undefined;
            resolve(undefined);
          }, ms);
          wake = () => {
            clearTimeout(timer);
            wake = undefined;
            resolve(inbox.shift());
          };
        });
  for (let i = 0; i < WS_REQUESTS; i++) {
    const text = f.body();
    ws.send(i % 5 === 4 ? Buffer.from(text) : text);
    if (expected(text) === 'none') {
      // nothing may come back: a sentinel's answer must be the next message
      ws.send('{"jsonrpc":"2.0","id":"sentinel","method":"eth_chainId"}');
      const a = await next(60_000);
      if (!a?.includes('"id":"sentinel"'))
        fail(`WS #${i}`, text, [`answered notifications: ${a?.slice(0, 200)}`]);
    } else {
      fail(`WS #${i}`, text, check(text, await next(60_000)));
    }
    assert.ok(alive(node), `the node exited after WebSocket message #${i}: ${text.slice(0, 400)}`);
  }

  const report = await probe.stop();
  t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries([...outcomes].sort((a, b) => b[1] - a[1])))}`);
  t.diagnostic(`eth_blockNumber during the fuzz: ${JSON.stringify(report)}`);
  assert.deepEqual(failures, []);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});
