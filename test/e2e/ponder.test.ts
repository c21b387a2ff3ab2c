/**
 * Ponder, the indexer (examples/ponder, installed by scripts/install-examples.ts), indexing chaind:
 * an ERC20's Transfer logs with their receipts, the children a factory announces (Ponder's factory
 * pattern) and their logs, and the call traces into the factory and the children. The example's
 * scripts/activity.ts deploys and makes one round of activity before `ponder start` (which Ponder
 * then backfills: eth_getLogs, eth_getBlockReceipts, debug_traceBlockByNumber) and one while it runs
 * (its live sync: new blocks over eth_subscribe or polled, debug_traceBlockByHash). What Ponder then
 * serves over GraphQL must be, row for row, what the chain says when asked directly: eth_getLogs,
 * eth_getTransactionReceipt and debug_traceTransaction with the callTracer.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { Interface } from 'ethers';
import { ChildAbi } from '../../examples/ponder/abis/Child.ts';
import { FactoryAbi } from '../../examples/ponder/abis/Factory.ts';
import { TokenAbi } from '../../examples/ponder/abis/Token.ts';
import { startDev } from '../helpers/dev-banner.ts';
import { freePort } from '../helpers/free-port.ts';
import { result } from '../helpers/json-rpc.ts';
import { TestNetwork, cometbftOrSkip } from '../helpers/network.ts';
import { DEV_ACCOUNTS } from '../helpers/node.ts';

const PROJECT = resolve(import.meta.dirname, '../../examples/ponder');
const PONDER = join(PROJECT, 'node_modules/ponder/dist/esm/bin/ponder.js');
const NOT_INSTALLED = existsSync(PONDER)
  ? false
  : 'examples/ponder is not installed: run node scripts/install-examples.ts';

/**
 * Ponder's finality depth for a chain id it does not know: it backfills up to `latest` − 30 and
 * indexes newer blocks live, so the first round is buried this deep before Ponder starts.
 */
const FINALITY_BLOCKS = 30;

/**
 * The dev chain's max_blocks_for_log in the test: narrower than Ponder's backfill, so Ponder must split
 * its eth_getLogs ranges by what chaind's -32005 answer says (it reads "query exceeds max block range N").
 */
const LOG_RANGE = 8;

const token = new Interface(TokenAbi as never);
const factory = new Interface(FactoryAbi as never);
const child = new Interface(ChildAbi as never);

interface Round {
  chainId: number;
  token: string;
  factory: string;
  children: string[];
  startBlock: number;
  lastBlock: number;
  transactions: string[];
}

function collect(child: ChildProcess): { output: () => string } {
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  return { output: () => output };
}

/** One round of the example's scripts/activity.ts against `rpcUrl`: deploys unless given contracts. */
function activity(rpcUrl: string, key: string, args: string[] = []): Promise<Round> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, ['scripts/activity.ts', ...args], {
      cwd: PROJECT,
      env: { ...process.env, PONDER_RPC_URL: rpcUrl, PRIVATE_KEY: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const { output } = collect(p);
    p.on('close', (code) => {
      if (code !== 0) return fail(new Error(`scripts/activity.ts exited ${code}:\n${output()}`));
      done(JSON.parse(output().trim().split('\n').at(-1)!) as Round);
    });
  });
}

class PonderExited extends Error {}

/** Polls `check` until it returns a value (not undefined), failing with Ponder's output past `ms`. */
async function until<T>(
  what: string,
  ms: number,
  check: () => Promise<T | undefined>,
  log: () => string,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    // a failed check is one more poll, save that Ponder is gone
    const v = await check().catch((e) => {
      if (e instanceof PonderExited) throw e;
      return undefined;
    });
    if (v !== undefined) return v;
    if (Date.now() > deadline)
      throw new Error(`${what} not within ${ms} ms; Ponder said:\n${log().slice(-6000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `ponder start` on a free port with a database of its own, stopped (by pid) after the test. */
async function startPonder(
  t: { after(fn: () => unknown): void },
  urls: { rpc: string; ws?: string },
  first: Round,
) {
  const port = await freePort();
  const db = mkdtempSync(join(tmpdir(), 'chaind-ponder-'));
  const p = spawn(
    process.execPath,
    [
      PONDER,
      '--log-format',
      'json',
      '--log-level',
      'trace',
      'start',
      '--schema',
      'public',
      '--port',
      String(port),
    ],
    {
      cwd: PROJECT,
      env: {
        ...process.env,
        PONDER_TELEMETRY_DISABLED: 'true',
        PONDER_RPC_URL: urls.rpc,
        PONDER_WS_URL: urls.ws ?? '',
        PONDER_CHAIN_ID: String(first.chainId),
        PONDER_TOKEN_ADDRESS: first.token,
        PONDER_FACTORY_ADDRESS: first.factory,
        PONDER_START_BLOCK: String(first.startBlock),
        PONDER_DATABASE_DIR: db,
        PONDER_POLLING_INTERVAL: '250',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const { output } = collect(p);
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  t.after(async () => {
    if (p.exitCode === null && p.signalCode === null) {
      process.kill(p.pid!, 'SIGTERM');
      const killer = setTimeout(() => p.exitCode === null && process.kill(p.pid!, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(db, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const alive = () => {
    if (p.exitCode !== null)
      throw new PonderExited(`ponder start exited ${p.exitCode}:\n${output().slice(-6000)}`);
  };
  return {
    url,
    output,
    /** /ready answers 200 once the backfill is indexed. */
    async ready(ms: number) {
      await until(
        'ponder /ready',
        ms,
        async () => {
          alive();
          return (await fetch(`${url}/ready`)).status === 200 ? true : undefined;
        },
        output,
      );
    },
    /** Waits for /status to say the chain is indexed through `height`. */
    async indexed(height: number, ms: number) {
      await until(
        `ponder indexing through block ${height}`,
        ms,
        async () => {
          alive();
          const s = (await (await fetch(`${url}/status`)).json()) as {
            chaind?: { block?: { number: number } };
          };
          return (s.chaind?.block?.number ?? -1) >= height ? true : undefined;
        },
        output,
      );
    },
    async graphql(query: string): Promise<any> {
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { data?: any; errors?: unknown };
      assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      return body.data;
    },
  };
}

const hex = (n: number | bigint) => '0x' + n.toString(16);
const lower = (s: string) => s.toLowerCase();

/** The rows Ponder should hold, read from the chain directly. */
async function fromChain(rpcUrl: string, rounds: Round[]) {
  const first = rounds[0];
  const last = rounds.at(-1)!.lastBlock;
  // in ranges the dev chain's narrowed max_blocks_for_log allows
  const logs = async (address: string | string[], topic: string) => {
    const all: any[] = [];
    for (let from = first.startBlock; from <= last; from += LOG_RANGE) {
      const range = { fromBlock: hex(from), toBlock: hex(Math.min(from + LOG_RANGE - 1, last)) };
      all.push(...(await result(rpcUrl, 'eth_getLogs', [{ ...range, address, topics: [topic] }])));
    }
    return all;
  };

  const transfers = new Set<string>();
  for (const l of await logs(first.token, token.getEvent('Transfer')!.topicHash)) {
    const { from, to, value } = token.parseLog(l)!.args;
    const receipt = await result(rpcUrl, 'eth_getTransactionReceipt', [l.transactionHash]);
    transfers.add(
      [l.transactionHash, Number(l.logIndex), lower(from), lower(to), value, BigInt(receipt.gasUsed)].join(
        '|',
      ),
    );
  }

  const children = new Set<string>();
  const created: string[] = [];
  for (const l of await logs(first.factory, factory.getEvent('ChildCreated')!.topicHash)) {
    const args = factory.parseLog(l)!.args;
    created.push(lower(args.child));
    children.add([lower(args.child), lower(args.creator), args.label, Number(l.blockNumber)].join('|'));
    // the log is no claim: the creating transaction's trace must hold the CREATE of that address
    const trace = await result(rpcUrl, 'debug_traceTransaction', [
      l.transactionHash,
      { tracer: 'callTracer' },
    ]);
    const creates = (trace.calls ?? []).filter((c: any) => c.type === 'CREATE').map((c: any) => lower(c.to));
    assert.deepEqual(creates, [lower(args.child)], `the CREATEs of ${l.transactionHash}`);
  }

  const pokes = new Set<string>();
  for (const l of await logs(created, child.getEvent('Poked')!.topicHash)) {
    const { by, amount, total } = child.parseLog(l)!.args;
    pokes.add([l.transactionHash, Number(l.logIndex), lower(l.address), lower(by), amount, total].join('|'));
  }

  // every frame of every transaction in the range, numbered depth-first as a tracer's reader walks it
  const targets = new Map<string, Interface>([
    [lower(first.factory), factory],
    ...created.map((c) => [c, child] as const),
  ]);
  const calls = new Set<string>();
  // the frames Ponder leaves out: a call that reverted (its error says so), and every call under one
  const reverted: string[] = [];
  for (let n = first.startBlock; n <= last; n++) {
    const block = await result(rpcUrl, 'eth_getBlockByNumber', [hex(n), false]);
    for (const tx of block.transactions as string[]) {
      const top = await result(rpcUrl, 'debug_traceTransaction', [tx, { tracer: 'callTracer' }]);
      let index = 0;
      const walk = (frame: any, failed: boolean) => {
        const i = index++;
        const abi = frame.to && targets.get(lower(frame.to));
        const fn = abi && frame.type === 'CALL' ? abi.getFunction(frame.input.slice(0, 10)) : null;
        failed ||= frame.error !== undefined;
        if (fn && failed) reverted.push(`${fn.name}: ${frame.error} (${frame.revertReason})`);
        else if (fn && ['createChild', 'pokeChild', 'tryPokeChild', 'poke'].includes(fn.name))
          calls.add(
            [
              tx,
              i,
              fn.name,
              frame.type,
              lower(frame.from),
              lower(frame.to),
              frame.input,
              frame.output ?? null,
              BigInt(frame.gasUsed),
            ].join('|'),
          );
        for (const c of frame.calls ?? []) walk(c, failed);
      };
      walk(top, false);
    }
  }
  // each round's tryPokeChild(child, 0): the poke under it reverts, the transaction does not
  assert.deepEqual(reverted, [
    'poke: execution reverted (nothing to add)',
    'poke: execution reverted (nothing to add)',
  ]);
  return { transfers, children, pokes, calls };
}

/** The rows Ponder serves, in the same shape. */
async function fromPonder(ponder: Awaited<ReturnType<typeof startPonder>>) {
  const data = await ponder.graphql(`{
    transfers(limit: 1000) { items { transactionHash logIndex from to value gasUsed } pageInfo { hasNextPage } }
    childs(limit: 1000) { items { address creator label blockNumber } pageInfo { hasNextPage } }
    pokes(limit: 1000) { items { transactionHash logIndex child by amount total } pageInfo { hasNextPage } }
    calls(limit: 1000) {
      items { transactionHash traceIndex function type from to input output gasUsed }
      pageInfo { hasNextPage }
    }
  }`);
  for (const table of ['transfers', 'childs', 'pokes', 'calls'])
    assert.equal(data[table].pageInfo.hasNextPage, false);
  const set = (rows: any[], row: (r: any) => unknown[]) => new Set(rows.map((r) => row(r).join('|')));
  return {
    transfers: set(data.transfers.items, (r) => [
      r.transactionHash,
      r.logIndex,
      r.from,
      r.to,
      BigInt(r.value),
      BigInt(r.gasUsed),
    ]),
    children: set(data.childs.items, (r) => [r.address, r.creator, r.label, Number(r.blockNumber)]),
    pokes: set(data.pokes.items, (r) => [
      r.transactionHash,
      r.logIndex,
      r.child,
      r.by,
      BigInt(r.amount),
      BigInt(r.total),
    ]),
    calls: set(data.calls.items, (r) => [
      r.transactionHash,
      r.traceIndex,
      r.function,
      r.type,
      r.from,
      r.to,
      r.input,
      r.output,
      BigInt(r.gasUsed),
    ]),
  };
}

/**
 * The scenario on one chain: a round, enough blocks past it for Ponder to backfill it, Ponder started,
 * a second round while it runs, then Ponder's rows against the chain's. New blocks reach Ponder over
 * eth_subscribe("newHeads") where `urls.ws` is given, else by polling eth_getBlockByNumber.
 */
async function indexAndCompare(
  t: { after(fn: () => unknown): void; diagnostic(msg: string): void },
  urls: { rpc: string; ws?: string },
  key: string,
  pastFinality: (height: number) => Promise<void>,
  opts: { logRangeSplit?: boolean } = {},
) {
  const rpcUrl = urls.rpc;
  const started = Date.now();
  const first = await activity(rpcUrl, key);
  await pastFinality(first.lastBlock + FINALITY_BLOCKS + 1);
  const ponder = await startPonder(t, urls, first);
  await ponder.ready(150_000);
  const ready = Date.now();
  const second = await activity(rpcUrl, key, ['--token', first.token, '--factory', first.factory]);
  await ponder.indexed(second.lastBlock, 60_000);
  t.diagnostic(
    `ponder ready ${ready - started} ms after the first round, live round indexed in ${Date.now() - ready} ms`,
  );

  const want = await fromChain(rpcUrl, [first, second]);
  const got = await fromPonder(ponder);
  // what the rounds did, so that equal sets are not two empty ones
  assert.equal(want.transfers.size, 1 + 3 + 3);
  assert.equal(want.children.size, 6);
  assert.equal(want.pokes.size, 12);
  assert.equal(want.calls.size, 6 + 6 + 2 + 12);
  assert.deepEqual(got, want);

  // both of Ponder's trace paths ran, the backfill's by number and the live sync's by hash (its trace
  // log names each request it sends)
  const methods = new Set([...ponder.output().matchAll(/"method":"(\w+)"/g)].map((m) => m[1]));
  t.diagnostic(`Ponder's JSON-RPC methods: ${[...methods].sort().join(', ')}`);
  assert.doesNotMatch(ponder.output(), /Configured chain ID does not match/);
  // a refusal Ponder retried (a busy trace slot, say) is no failure, but is worth seeing
  const retried = [...ponder.output().matchAll(/"msg":"Received JSON-RPC error".*?"method":"(\w+)"/g)].map(
    (m) => m[1],
  );
  if (retried.length > 0) t.diagnostic(`Ponder retried ${retried.length} request(s): ${retried.join(', ')}`);
  for (const m of ['debug_traceBlockByNumber', 'debug_traceBlockByHash', 'eth_getLogs'])
    assert.ok(methods.has(m), `Ponder never called ${m}: ${[...methods].join(', ')}`);
  if (opts.logRangeSplit)
    assert.match(
      ponder.output(),
      /Caught eth_getLogs range error/,
      'the backfill never met max_blocks_for_log',
    );
  if (urls.ws) {
    // the live blocks came from the subscription, which never failed (Ponder falls back to polling)
    assert.match(ponder.output(), /Received successful JSON-RPC WebSocket subscription data/);
    assert.doesNotMatch(ponder.output(), /Failed JSON-RPC WebSocket|unrecognized JSON-RPC WebSocket/);
  }
}

test(
  "Ponder indexes transfers, factory children and call traces from chaind dev (new blocks over eth_subscribe, eth_getLogs ranges split at max_blocks_for_log): its rows equal the chain's",
  { skip: NOT_INSTALLED, timeout: 300_000 },
  async (t) => {
    const { banner } = await startDev(t, ['--evm.max_blocks_for_log', String(LOG_RANGE)]);
    await indexAndCompare(
      t,
      { rpc: banner.evmUrl, ws: banner.wsUrl },
      banner.accounts[0].key,
      async (height) => {
        const now = Number(await result(banner.evmUrl, 'eth_blockNumber'));
        if (now < height) await result(banner.evmUrl, 'anvil_mine', [hex(height - now)]);
      },
      { logRangeSplit: true },
    );
  },
);

test(
  "Ponder indexes transfers, factory children and call traces from a 2-validator network's RPC node (new blocks polled): its rows equal the chain's",
  { skip: NOT_INSTALLED, timeout: 300_000 },
  async (t) => {
    if (!cometbftOrSkip(t)) return;
    const net = await TestNetwork.create(t, { validators: 2, rpcNodes: 1 });
    net.startAll();
    await net.waitHeight('rpc0', 2);
    const key = '0x' + Buffer.from(DEV_ACCOUNTS[0].privateKey).toString('hex');
    await indexAndCompare(t, { rpc: net.evmUrl('rpc0') }, key, async (height) => {
      await net.waitHeight('rpc0', height, 120_000);
    });
  },
);
