/**
 * `npm run bench -- peers [seconds per workload = 10] [burst txs = 2000]`: chaind against anvil and
 * Hardhat 3 (EDR) on this machine, with the same load client and the same workloads, on free
 * 127.0.0.1 ports. The local nodes run side by side (each idle while another is measured): their
 * bursts take turns, then each node's reads run and it stops. The network node runs alone last.
 *
 * The peers are installed with npm into PEERS_DIR (default `<os temp dir>/chaind-bench-peers`), never as
 * chaind's dependencies; PEERS=anvil,hardhat,chaind picks the nodes, PEERS_VARIANTS the variants by
 * the names below (`chaind,chaind_400ms`: for an A/B of one change), PEERS_WORKLOADS the read
 * workloads (all by default; `sequential` and `none` are workloads too). A peer that cannot be installed
 * gets one skip line. chaind runs as `chaind dev` with its defaults, once more with one RPC reader
 * thread (`chaind_readers1`: `[evm] http_reader_threads = 1`), once more with
 * `--block-time 400ms` when its dev command has that flag, and in network mode (`chaind_network`: a
 * one-validator `chaind testnet` on CometBFT, skipped when cometbft is not installed).
 *
 * Workloads, each with 8 requests in flight on 8 keep-alive connections (RawConnection):
 * - burst: an ERC20 and 8 funded senders; `txs` transfers pre-signed (gas limit 64,000 each, a
 *   fresh recipient each), each sender with one eth_sendRawTransaction in flight, timed from the
 *   first send until every one is mined: tx/s, blocks used, transfers per block. A first round on
 *   every node warms it up (`burst_first_round`: chaind's JIT compiles its hot paths there), then
 *   PEERS_BURST_ROUNDS (3) rounds visit the nodes in turn (`burst_round`) and `burst` is each node's
 *   median round. A round lasts 2-4 s, and the shared machine's speed drifts by ±20% over minutes:
 *   taking turns puts a slow minute on every node alike instead of on whichever ran in it.
 * - sequential: one sender, 300 transfers (PEERS_SEQUENTIAL_TXS) one at a time, each sent once the
 *   previous one's receipt is there (what a test suite or a deploy script does): tx/s and the median
 *   round trip. Only the nodes that mine on demand (chaind dev, Hardhat's automine); it runs before
 *   each node's reads.
 * - eth_blockNumber, eth_getBalance latest, eth_getBlockByNumber(latest, false), eth_call balanceOf
 *   latest (one holder; and a random holder of the burst's recipients each call, the same sequence
 *   on every node), eth_estimateGas of an ERC20 transfer, eth_getLogs of the token over 100 blocks: req/s, p99, CPU µs of the
 *   node's process tree per request (what a request costs, which other load disturbs far less).
 *   eth_getLogs covers the 100 blocks up to the one that mined the last burst transfer.
 * - eth_getBalance_random_funded: eth_getBalance latest of a random one of FUNDED (10,000) addresses
 *   funded first with hardhat_setBalance (the same sequence on every node; a fixed address measures a
 *   cache, not the node). Left out, with a skip line, where hardhat_setBalance is not served.
 * - wrk (-t1 -c8) on eth_blockNumber, eth_getBalance and eth_getBlockByNumber when wrk is installed.
 * - snapshot_revert, snapshot_revert_1block: evm_snapshot + evm_revert round trips (as loadFixture
 *   makes them), with nothing or one block (evm_mine, not timed) between: round trips/s of the median
 *   (PEERS_SNAPSHOT_ROUNDS, 200 by default), after the reads.
 * - hardhat_mine: one request for 10,000 empty blocks (PEERS_MINE_BLOCKS; anvil_mine on anvil),
 *   timed until it is answered and the head has moved that far: blocks/s and CPU µs per block. It
 *   runs after the reads, which it would otherwise move off the burst's last block; a node that does
 *   not serve it (network mode) gets a skip line. anvil's blocks cost more the longer its chain
 *   (10,000 take minutes); Hardhat answers at once, reserving the blocks: its figure is what a test
 *   waits, not the same work.
 *
 * Figures: `<workload>` per node (label `node`), then `<workload>_vs_<peer>` = chaind's rate ÷ the
 * peer's and `<workload>_cpu_vs_<peer>` = the peer's CPU per request ÷ chaind's (for each chaind
 * variant; above 1 is chaind ahead). When the native simulator is built (`npm run build:native-sim`)
 * `chaind` runs eth_call on it, and `chaind_js` is chaind with `--evm.native_simulator false`. The
 * machine's load average is a label of each figure: other processes on shared cores lower every
 * rate, so compare ratios from one run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Wallet, parseEther } from 'ethers';
import { accountsFromMnemonic } from '../src/crypto/accounts.ts';
import { percentile, report } from './report.ts';
import { treeCpuMs } from './rpc-hardhat.ts';
import {
  RawConnection,
  agent,
  artifacts,
  call,
  hex,
  load,
  post,
  rawError,
  rawRequest,
  rpcBody,
  startChaind,
  stop,
  token,
} from './rpc-common.ts';
import {
  installPeers,
  peersDir,
  runWrk,
  startAnvil,
  startChaindNetwork,
  startHardhat3,
  wrkInstalled,
  type Peer,
} from './peers.ts';
import { CHAIND } from '../test/helpers/chaind.ts';
import { nativeSimulator } from '../src/execution/simulation/native-binding.ts';
import { CONFIG_TOML } from '../src/config/schema.ts';

const BENCH = 'peers';
const SECONDS = Number(process.argv[3] ?? 10);
const TXS = Number(process.argv[4] ?? 2000);
const IN_FLIGHT = 8;
const SENDERS = 8;
const TRANSFER_GAS = 64_000n;
/** Measured burst rounds per node (after a first, warm-up round); `burst` is their median. */
const BURST_ROUNDS = Number(process.env.PEERS_BURST_ROUNDS ?? 3);
const wanted = (process.env.PEERS ?? 'anvil,hardhat,chaind,chaind_network').split(',');
/** PEERS_WORKLOADS=a,b: only these read workloads (the burst always runs: it makes the holders), e.g. to profile one. */
const onlyWorkloads = process.env.PEERS_WORKLOADS?.split(',');
const onlyVariants = process.env.PEERS_VARIANTS?.split(',');

const keys = accountsFromMnemonic(
  'test test test test test test test test test test test junk',
  SENDERS + 1,
).map((a) => '0x' + Buffer.from(a.privateKey).toString('hex'));
const deployer = new Wallet(keys[0]);
const senders = keys.slice(1).map((k) => new Wallet(k));
const recipientOf = (i: number) => '0x' + (0x1000 + i).toString(16).padStart(40, '0');
/** Addresses funded for the random-address balance reads (PEERS_FUNDED, 10,000 by default). */
const FUNDED = Number(process.env.PEERS_FUNDED ?? 10_000);
const fundedOf = (i: number) => '0x' + (0xf00000 + i).toString(16).padStart(40, '0');

/** The same pseudo-random holder sequence on every node. */
function holderSequence(n: number, holders: number): number[] {
  let x = 0x2545f491;
  return Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % holders;
  });
}

async function receiptOf(url: URL, hash: string): Promise<any> {
  for (;;) {
    const r = await call(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 5));
  }
}

/** Per figure: its rate and the node's CPU time per request or tx (µs), when measured. */
/** A node this machine cannot run; the bench says so and goes on. */
class Skip extends Error {}

type Results = Map<string, { value: number; unit: string; cpuUs?: number; labels?: object }>;
type BurstRound = { value: number; cpuUs: number; endHeight: number };

/** Deploys the token and gives each sender a share; returns the token's address. */
async function setupToken(url: URL, chainId: bigint, fee: object): Promise<string> {
  let nonce = Number(await call(url, 'eth_getTransactionCount', [deployer.address, 'latest']));
  const deploy = await deployer.signTransaction({
    ...fee,
    chainId,
    nonce: nonce++,
    gasLimit: 2_000_000n,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['B', 'B', parseEther('1000000000')]).slice(2),
  });
  const deployed = await receiptOf(url, await call(url, 'eth_sendRawTransaction', [deploy]));
  const address: string = deployed.contractAddress;
  const funding = [];
  for (const s of senders)
    funding.push(
      await deployer.signTransaction({
        ...fee,
        chainId,
        to: address,
        nonce: nonce++,
        gasLimit: 100_000n,
        data: token.encodeFunctionData('transfer', [s.address, parseEther('1000000')]),
      }),
    );
  const hashes = [];
  for (const raw of funding) hashes.push(await call(url, 'eth_sendRawTransaction', [raw]));
  for (const h of hashes) {
    const r = await receiptOf(url, h);
    if (r.status !== '0x1') throw new Error('funding transfer reverted');
  }
  return address;
}

/** `count` token transfers of 1 from `sender`, pre-signed from its next nonce on, to `recipient(i)`. */
async function signTransfers(
  { peer, tokenAddress, chainId, fee }: Prepared,
  sender: Wallet,
  count: number,
  recipient: (i: number) => string,
): Promise<string[]> {
  let nonce = Number(await call(peer.url, 'eth_getTransactionCount', [sender.address, 'latest']));
  const signed = [];
  for (let i = 0; i < count; i++)
    signed.push(
      await sender.signTransaction({
        ...fee,
        chainId,
        to: tokenAddress,
        nonce: nonce++,
        gasLimit: TRANSFER_GAS,
        data: token.encodeFunctionData('transfer', [recipient(i), 1n]),
      }),
    );
  return signed;
}

/** The burst: every sender's transfers pre-signed, one send in flight per sender, until all are mined. */
async function burst(prepared: Prepared, round: number): Promise<BurstRound> {
  const { peer } = prepared;
  const perSender = Math.ceil(TXS / SENDERS);
  const signed: string[][] = [];
  for (const [s, w] of senders.entries())
    signed.push(await signTransfers(prepared, w, perSender, (i) => recipientOf(i * SENDERS + s)));
  const conns = await Promise.all(senders.map(() => RawConnection.open(peer.url)));
  const startHeight = Number(await call(peer.url, 'eth_blockNumber'));
  const cpu0 = treeCpuMs(peer.child.pid!);
  const t0 = performance.now();
  const last = await Promise.all(
    signed.map(async (list, s) => {
      let hash = '';
      for (const raw of list) {
        const answer = await conns[s].send(rawRequest(peer.url, rpcBody('eth_sendRawTransaction', [raw])));
        const error = rawError(answer);
        if (error) throw new Error(`${peer.name} eth_sendRawTransaction: ${error}`);
        hash = JSON.parse(answer.toString('utf8')).result;
      }
      return hash;
    }),
  );
  const receipts = await Promise.all(last.map((h) => receiptOf(peer.url, h)));
  const seconds = (performance.now() - t0) / 1000;
  const cpuMs = treeCpuMs(peer.child.pid!) - cpu0;
  for (const c of conns) c.close();
  if (receipts.some((r) => r.status !== '0x1')) throw new Error(`${peer.name}: a burst transfer reverted`);
  const endHeight = Math.max(...receipts.map((r) => Number(r.blockNumber)));
  const total = perSender * SENDERS;
  const blocks = endHeight - startHeight;
  const value = total / seconds;
  const labels = {
    node: peer.name,
    mining: peer.mining,
    round,
    txs: total,
    seconds: Math.round(seconds * 100) / 100,
    blocks,
    txs_per_block: Math.round(total / blocks),
    cpu_ms_per_tx: Math.round((cpuMs / total) * 1000) / 1000,
    load_avg: loadavg()[0],
  };
  report(BENCH, round === 0 ? 'burst_first_round' : 'burst_round', value, 'tx/s', labels);
  return { value, cpuUs: (cpuMs * 1000) / total, endHeight };
}

/**
 * The burst on every node, round after round: a first (warm-up) round on each, then BURST_ROUNDS
 * rounds that visit the nodes in turn, so that a slower minute of the shared machine falls on every
 * node alike. `burst` is each node's median round.
 */
async function bursts(nodes: Prepared[]): Promise<void> {
  const rounds = new Map<Prepared, BurstRound[]>(nodes.map((n) => [n, []]));
  for (const n of nodes) {
    const first = await burst(n, 0);
    n.lastBurstHeight = first.endHeight;
    n.results.set('burst_first_round', { value: first.value, unit: 'tx/s', cpuUs: first.cpuUs });
  }
  for (let round = 1; round <= BURST_ROUNDS; round++)
    for (const n of nodes) {
      const r = await burst(n, round);
      rounds.get(n)!.push(r);
      n.lastBurstHeight = r.endHeight;
    }
  for (const n of nodes) {
    const sorted = [...rounds.get(n)!].sort((a, b) => a.value - b.value);
    if (sorted.length === 0) continue; // PEERS_BURST_ROUNDS=0: only the first round, to reach the state the reads expect
    const median = sorted[(sorted.length - 1) >> 1];
    n.results.set('burst', { value: median.value, unit: 'tx/s', cpuUs: median.cpuUs });
    report(BENCH, 'burst', median.value, 'tx/s', {
      node: n.peer.name,
      mining: n.peer.mining,
      median_of: sorted.length,
      rounds: rounds.get(n)!.map((r) => Math.round(r.value)),
      cpu_ms_per_tx: Math.round(median.cpuUs) / 1000,
    });
  }
}

/** Transfers of the one-at-a-time workload (PEERS_SEQUENTIAL_TXS, e.g. more of them to profile it). */
const SEQUENTIAL_TXS = Number(process.env.PEERS_SEQUENTIAL_TXS ?? 300);

/**
 * One sender, one transfer at a time, each sent once the previous one is mined (its receipt read):
 * what a test suite or a deploy script does. Only nodes that mine on demand (chaind dev, Hardhat's
 * automine) take part: with interval blocks every transfer would wait for its block.
 */
async function sequential(prepared: Prepared): Promise<void> {
  const { peer, results } = prepared;
  if (!/dev defaults|automine/.test(peer.mining)) return;
  const signed = await signTransfers(prepared, senders[0], SEQUENTIAL_TXS, recipientOf);
  const conn = await RawConnection.open(peer.url);
  const ask = async (method: string, params: unknown[]) => {
    const answer = await conn.send(rawRequest(peer.url, rpcBody(method, params)));
    const error = rawError(answer);
    if (error) throw new Error(`${peer.name} ${method}: ${error}`);
    return JSON.parse(answer.toString('utf8')).result;
  };
  const latencies: number[] = [];
  const cpu0 = treeCpuMs(peer.child.pid!);
  const t0 = performance.now();
  try {
    for (const raw of signed) {
      const t = performance.now();
      const hash = await ask('eth_sendRawTransaction', [raw]);
      let receipt = await ask('eth_getTransactionReceipt', [hash]);
      while (!receipt) receipt = await ask('eth_getTransactionReceipt', [hash]);
      if (receipt.status !== '0x1') throw new Error(`${peer.name}: a sequential transfer reverted`);
      latencies.push(performance.now() - t);
    }
  } finally {
    conn.close();
  }
  const value = SEQUENTIAL_TXS / ((performance.now() - t0) / 1000);
  const cpuUs = ((treeCpuMs(peer.child.pid!) - cpu0) * 1000) / SEQUENTIAL_TXS;
  const labels = { median_ms: Math.round(percentile(latencies, 50) * 1000) / 1000 };
  results.set('sequential', { value, unit: 'tx/s', cpuUs, labels });
  report(BENCH, 'sequential', value, 'tx/s', {
    node: peer.name,
    mining: peer.mining,
    txs: SEQUENTIAL_TXS,
    ...labels,
    p99_ms: Math.round(percentile(latencies, 99) * 1000) / 1000,
    cpu_ms_per_tx: Math.round(cpuUs) / 1000,
    load_avg: loadavg()[0],
  });
}

/** Blocks of the hardhat_mine figure (PEERS_MINE_BLOCKS). */
const MINE_BLOCKS = Number(process.env.PEERS_MINE_BLOCKS ?? 10_000);

/**
 * One hardhat_mine (anvil_mine on anvil) of MINE_BLOCKS blocks: what a test that jumps far ahead
 * waits for. Timed until the answer and a head that far on, so a node that answered first is not
 * credited with blocks it had yet to make.
 */
async function mineFigure(prepared: Prepared): Promise<void> {
  const { peer, results } = prepared;
  const method = peer.name === 'anvil' ? 'anvil_mine' : 'hardhat_mine';
  // a connection of its own: the shared agent's sockets to this node sat idle while the nodes before
  // it mined (anvil takes minutes), and one the node has dropped meanwhile hangs up on reuse
  const conn = await RawConnection.open(peer.url);
  const ask = async (m: string, params: unknown[]) =>
    JSON.parse((await conn.send(rawRequest(peer.url, rpcBody(m, params)))).toString('utf8'));
  try {
    const start = Number((await ask('eth_blockNumber', [])).result);
    const cpu0 = treeCpuMs(peer.child.pid!);
    const t0 = performance.now();
    const answer = await ask(method, [hex(MINE_BLOCKS)]);
    if (answer.error) {
      report(BENCH, 'hardhat_mine', 0, 'skipped', {
        node: peer.name,
        skipped: `${method}: ${answer.error.message}`,
      });
      return;
    }
    let head = Number((await ask('eth_blockNumber', [])).result);
    while (head < start + MINE_BLOCKS) head = Number((await ask('eth_blockNumber', [])).result);
    const seconds = (performance.now() - t0) / 1000;
    const cpuUs = ((treeCpuMs(peer.child.pid!) - cpu0) * 1000) / MINE_BLOCKS;
    const labels = { method };
    results.set('hardhat_mine', { value: MINE_BLOCKS / seconds, unit: 'blocks/s', cpuUs, labels });
    report(BENCH, 'hardhat_mine', MINE_BLOCKS / seconds, 'blocks/s', {
      node: peer.name,
      mining: peer.mining,
      ...labels,
      blocks: MINE_BLOCKS,
      seconds: Math.round(seconds * 1000) / 1000,
      cpu_us_per_block: Math.round(cpuUs),
      load_avg: loadavg()[0],
    });
  } finally {
    conn.close();
  }
}

/** Round trips of each snapshot figure (PEERS_SNAPSHOT_ROUNDS). */
const SNAPSHOT_ROUNDS = Number(process.env.PEERS_SNAPSHOT_ROUNDS ?? 200);

/**
 * evm_snapshot then evm_revert, one after the other on one connection, as Hardhat's loadFixture pays
 * them before each test: with nothing between them (snapshot_revert), and with one block mined
 * between them, not timed (snapshot_revert_1block: the revert then undoes a block). Round trips per
 * second of the median, p99 and CPU µs per round trip as labels.
 */
async function snapshotFigures(prepared: Prepared): Promise<void> {
  const { peer, results } = prepared;
  const conn = await RawConnection.open(peer.url);
  const ask = async (m: string, params: unknown[] = []) =>
    JSON.parse((await conn.send(rawRequest(peer.url, rpcBody(m, params)))).toString('utf8'));
  try {
    for (const [figure, between] of [
      ['snapshot_revert', undefined],
      ['snapshot_revert_1block', 'evm_mine'],
    ] as const) {
      const latencies: number[] = [];
      let cpuMs = 0;
      for (let i = 0; i < SNAPSHOT_ROUNDS; i++) {
        const cpu0 = treeCpuMs(peer.child.pid!);
        const t0 = performance.now();
        const id = await ask('evm_snapshot');
        if (id.error) {
          report(BENCH, figure, 0, 'skipped', {
            node: peer.name,
            skipped: `evm_snapshot: ${id.error.message}`,
          });
          return;
        }
        let took = performance.now() - t0;
        cpuMs += treeCpuMs(peer.child.pid!) - cpu0;
        // the block between is neither timed nor counted: only the two calls are
        if (between) await ask(between);
        const cpu1 = treeCpuMs(peer.child.pid!);
        const t1 = performance.now();
        const reverted = await ask('evm_revert', [id.result]);
        took += performance.now() - t1;
        cpuMs += treeCpuMs(peer.child.pid!) - cpu1;
        if (reverted.result !== true)
          throw new Error(`${peer.name}: evm_revert answered ${JSON.stringify(reverted)}`);
        latencies.push(took);
      }
      latencies.sort((a, b) => a - b);
      const median = percentile(latencies, 50);
      const cpuUs = (cpuMs * 1000) / SNAPSHOT_ROUNDS;
      results.set(figure, { value: 1000 / median, unit: 'round trips/s', cpuUs, labels: {} });
      report(BENCH, figure, 1000 / median, 'round trips/s', {
        node: peer.name,
        median_ms: Math.round(median * 1000) / 1000,
        p99_ms: Math.round(percentile(latencies, 99) * 1000) / 1000,
        cpu_us_per_round_trip: Math.round(cpuUs),
        rounds: SNAPSHOT_ROUNDS,
        load_avg: loadavg()[0],
      });
    }
  } finally {
    conn.close();
  }
}

async function reads(
  { peer, tokenAddress, results, lastBurstHeight }: Prepared,
  holders: number,
  scratch: string,
) {
  // the 100 blocks up to the burst's last: a node that mines on a timer has made empty blocks since
  const latest = lastBurstHeight;
  const logsFilter = {
    fromBlock: hex(Math.max(0, latest - 99)),
    toBlock: hex(latest),
    address: tokenAddress,
  };
  const logs = (await call(peer.url, 'eth_getLogs', [logsFilter])).length;
  const randomHolders = holderSequence(1 << 16, holders).map((h) =>
    rpcBody('eth_call', [
      { to: tokenAddress, data: token.encodeFunctionData('balanceOf', [recipientOf(h)]) },
      'latest',
    ]),
  );
  const fixed = {
    eth_blockNumber: rpcBody('eth_blockNumber', []),
    eth_getBalance_latest: rpcBody('eth_getBalance', [deployer.address, 'latest']),
    eth_getBlockByNumber_latest: rpcBody('eth_getBlockByNumber', ['latest', false]),
    eth_call_balanceOf: rpcBody('eth_call', [
      { to: tokenAddress, data: token.encodeFunctionData('balanceOf', [senders[0].address]) },
      'latest',
    ]),
    eth_estimateGas_transfer: rpcBody('eth_estimateGas', [
      {
        from: senders[0].address,
        to: tokenAddress,
        data: token.encodeFunctionData('transfer', [recipientOf(0), 1n]),
      },
      'latest',
    ]),
  };
  const funded = await fundRandomAddresses(peer);
  const randomFunded = holderSequence(1 << 16, FUNDED).map((h) =>
    rpcBody('eth_getBalance', [fundedOf(h), 'latest']),
  );
  const workloads: { name: string; body: (i: number) => string; labels?: object }[] = [
    ...Object.entries(fixed).map(([name, body]) => ({ name, body: () => body })),
    ...(funded
      ? [
          {
            name: 'eth_getBalance_random_funded',
            body: (i: number) => randomFunded[i & 0xffff],
            labels: { funded: FUNDED },
          },
        ]
      : []),
    {
      name: 'eth_call_balanceOf_random_holder',
      body: (i: number) => randomHolders[i & 0xffff],
      labels: { holders },
    },
    { name: 'eth_getLogs_100_blocks', body: () => rpcBody('eth_getLogs', [logsFilter]), labels: { logs } },
  ];
  for (const w of workloads.filter((w) => onlyWorkloads?.includes(w.name) ?? true)) {
    const pid = peer.child.pid!;
    let cpu0 = 0;
    const r = await load(peer.url, w.name, w.body, SECONDS, 500, () => (cpu0 = treeCpuMs(pid)), IN_FLIGHT);
    const cpuUs = ((treeCpuMs(pid) - cpu0) * 1000) / r.requests;
    results.set(w.name, { value: r.reqPerS, unit: 'req/s', cpuUs, labels: w.labels });
    report(BENCH, w.name, r.reqPerS, 'req/s', {
      node: peer.name,
      p99_ms: Math.round(r.p99Ms * 100) / 100,
      cpu_us_per_req: Math.round(cpuUs),
      in_flight: IN_FLIGHT,
      seconds: SECONDS,
      load_avg: loadavg()[0],
      ...w.labels,
    });
  }
  if (!wrkInstalled()) return;
  for (const name of ['eth_blockNumber', 'eth_getBalance_latest', 'eth_getBlockByNumber_latest'] as const) {
    if (onlyWorkloads && !onlyWorkloads.includes(`wrk_${name}`)) continue;
    const rate = await runWrk(peer.url, fixed[name], SECONDS, IN_FLIGHT, scratch);
    results.set(`wrk_${name}`, { value: rate, unit: 'req/s' });
    report(BENCH, `wrk_${name}`, rate, 'req/s', {
      node: peer.name,
      connections: IN_FLIGHT,
      seconds: SECONDS,
      load_avg: loadavg()[0],
    });
  }
}

/**
 * Gives each of the FUNDED addresses a balance of its own (hardhat_setBalance, 8 in flight): true,
 * or false with a skip line where the node does not serve it (a network node).
 */
async function fundRandomAddresses(peer: Peer): Promise<boolean> {
  if (onlyWorkloads && !onlyWorkloads.includes('eth_getBalance_random_funded')) return false;
  const probe = await post(peer.url, rpcBody('hardhat_setBalance', [fundedOf(0), hex(1_000_000)]));
  if (probe.error) {
    report(BENCH, 'eth_getBalance_random_funded', 0, 'skipped', {
      node: peer.name,
      skipped: `hardhat_setBalance: ${probe.error.message}`,
    });
    return false;
  }
  let next = 1;
  const worker = async () => {
    for (let i = next++; i < FUNDED; i = next++) {
      const r = await post(peer.url, rpcBody('hardhat_setBalance', [fundedOf(i), hex(1_000_000 + i)]));
      if (r.error) throw new Error(`${peer.name}: hardhat_setBalance: ${r.error.message}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return true;
}

/** A started node with its ERC20 deployed and its senders funded. */
interface Prepared {
  peer: Peer;
  tokenAddress: string;
  chainId: bigint;
  fee: object;
  results: Results;
  /** The block that mined the last burst round's last transfer. */
  lastBurstHeight: number;
}

async function prepare(peer: Peer): Promise<Prepared> {
  const chainId = BigInt(await call(peer.url, 'eth_chainId'));
  // what each node asks now, with room: the burst must not stall on a rising base fee
  const gasPrice = BigInt(await call(peer.url, 'eth_gasPrice'));
  const fee = { type: 2, maxFeePerGas: gasPrice * 4n + 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n };
  report(BENCH, 'node', 1, 'node', { node: peer.name, version: peer.version, mining: peer.mining });
  const tokenAddress = await setupToken(peer.url, chainId, fee);
  return { peer, tokenAddress, chainId, fee, results: new Map(), lastBurstHeight: 0 };
}

/** chaind dev's `--block-time` help line, when the flag exists (another dev mining mode may be the default then). */
function chaindDevBlockTimeHelp(): string | undefined {
  const help = spawnSync(process.execPath, [CHAIND, 'dev', '--help'], { encoding: 'utf8' }).stdout;
  return help
    .split('\n')
    .find((l) => l.includes('--block-time'))
    ?.trim()
    .replace(/\s+/g, ' ');
}

/** How `chaind dev` makes blocks with its defaults, for the figures' labels. */
function chaindDevMining(blockTimeHelp: string | undefined): string {
  if (blockTimeHelp) return `dev defaults; the dev command has ${blockTimeHelp}`;
  const c = CONFIG_TOML.consensus;
  return (
    `dev defaults: a block ${c['timeout-commit'].default} ms after the previous commit, ` +
    `empty blocks ${c['create-empty-blocks'].default ? 'on' : 'off'}`
  );
}

const scratch = mkdtempSync(join(tmpdir(), 'chaind-bench-peers-'));
const all = new Map<string, Results>();
try {
  if (!wrkInstalled())
    report(BENCH, 'wrk', 0, 'skipped', { skipped: 'wrk is not installed: wrk figures left out' });
  const dir = peersDir();
  const installError = wanted.some((p) => p !== 'chaind') ? installPeers(dir) : undefined;
  const starters: [string, () => Promise<Peer>][] = [];
  for (const name of wanted) {
    if (name === 'anvil' || name === 'hardhat') {
      if (installError) {
        console.log(JSON.stringify({ bench: BENCH, node: name, skipped: installError }));
        continue;
      }
      starters.push([name, () => (name === 'anvil' ? startAnvil(dir) : startHardhat3(dir))]);
    } else if (name === 'chaind') {
      const blockTime = chaindDevBlockTimeHelp();
      const chaind = async (
        args: string[],
        label: string,
        env: Record<string, string> = {},
      ): Promise<Peer> => {
        const { child, url } = await startChaind(['dev', ...args], env);
        return {
          name: label,
          version: await call(url, 'web3_clientVersion'),
          mining: 'dev defaults',
          child,
          url,
        };
      };
      starters.push(['chaind', () => chaind([], 'chaind')]);
      // eth_call on the JS EVM, when the native simulator is built (and so what `chaind` runs on)
      if (typeof nativeSimulator() !== 'string')
        starters.push([
          'chaind_js',
          async () => ({
            ...(await chaind(['--evm.native_simulator', 'false'], 'chaind_js')),
            mining: 'dev defaults, --evm.native_simulator false',
          }),
        ]);
      // the same node with one RPC reader thread beside the main one
      starters.push([
        'chaind_readers1',
        async () => ({
          ...(await chaind([], 'chaind_readers1', { CHAIND_EVM_HTTP_READER_THREADS: '1' })),
          mining: 'dev defaults, [evm] http_reader_threads = 1',
        }),
      ]);
      if (blockTime)
        starters.push([
          'chaind_400ms',
          async () => ({
            ...(await chaind(['--block-time', '400ms'], 'chaind_400ms')),
            mining: '--block-time 400ms',
          }),
        ]);
      else report(BENCH, 'chaind_400ms', 0, 'skipped', { skipped: 'chaind dev has no --block-time flag' });
    } else if (name === 'chaind_network') {
      starters.push([
        name,
        async () => {
          const started = await startChaindNetwork(scratch);
          if (typeof started === 'string') throw new Skip(started);
          return started;
        },
      ]);
    } else throw new Error(`unknown node ${name} in PEERS (anvil, hardhat, chaind, chaind_network)`);
  }
  // The local nodes run side by side, idle but for the one measured, so that their bursts can take
  // turns; the network (a validator and CometBFT making blocks all the time) runs alone afterwards.
  const picked = starters.filter(([name]) => onlyVariants?.includes(name) ?? true);
  const together = picked.filter(([name]) => name !== 'chaind_network');
  const alone = picked.filter(([name]) => name === 'chaind_network');
  const started: Prepared[] = [];
  const startOne = async ([name, start]: (typeof starters)[number]): Promise<Prepared | undefined> => {
    let peer: Peer;
    try {
      peer = await start();
    } catch (err) {
      if (!(err instanceof Skip)) throw err;
      console.log(JSON.stringify({ bench: BENCH, node: name, skipped: err.message }));
      return undefined;
    }
    try {
      return await prepare(peer);
    } catch (err) {
      await stop(peer.child);
      throw err;
    }
  };
  const readsThenStop = async (n: Prepared) => {
    try {
      if (onlyWorkloads?.includes('sequential') ?? true) await sequential(n);
      await reads(n, Math.ceil(TXS / SENDERS) * SENDERS, scratch);
      if (onlyWorkloads?.includes('snapshot_revert') ?? true) await snapshotFigures(n);
      if (onlyWorkloads?.includes('hardhat_mine') ?? true) await mineFigure(n);
      all.set(n.peer.name, n.results);
    } finally {
      await stop(n.peer.child);
    }
  };
  try {
    for (const s of together) {
      const n = await startOne(s);
      if (n) started.push(n);
    }
    await bursts(started);
    while (started.length > 0) await readsThenStop(started.shift()!);
  } finally {
    for (const n of started) await stop(n.peer.child);
  }
  for (const s of alone) {
    const n = await startOne(s);
    if (!n) continue;
    try {
      await bursts([n]);
    } catch (err) {
      await stop(n.peer.child);
      throw err;
    }
    await readsThenStop(n);
  }
  for (const [name, results] of all) {
    if (!name.startsWith('chaind')) continue;
    for (const peerName of ['anvil', 'hardhat']) {
      const peer = all.get(peerName);
      if (!peer) continue;
      for (const [figure, r] of results) {
        const p = peer.get(figure);
        if (!p) continue;
        // answers of different sizes (eth_getLogs over blocks that hold different txs) are labelled
        const sides = r.labels ? { chaind: r.labels, [peerName]: p.labels } : {};
        report(BENCH, `${figure}_vs_${peerName}`, r.value / p.value, 'x', { node: name, ...sides });
        // the peer's CPU time per request ÷ chaind's: what other load on the machine disturbs least
        if (r.cpuUs && p.cpuUs)
          report(BENCH, `${figure}_cpu_vs_${peerName}`, p.cpuUs / r.cpuUs, 'x', { node: name, ...sides });
      }
    }
  }
} finally {
  agent.destroy();
  rmSync(scratch, { recursive: true, force: true });
}
