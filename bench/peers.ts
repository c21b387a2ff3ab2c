/**
 * The peer nodes of the peers bench (peers.bench.ts): anvil and Hardhat 3 installed with npm into a
 * scratch directory that is never one of chaind's dependencies, each started on a free 127.0.0.1
 * port, and wrk (when installed) as a second load client.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { installedBinaryPath } from '../src/cometbft/binary.ts';
import { CHAIND } from '../test/helpers/chaind.ts';
import { call, startChaind } from './rpc-common.ts';

/** Pinned so that a figure names what it was measured against. */
export const PEER_PACKAGES = { anvil: '@foundry-rs/anvil@1.7.1', hardhat: 'hardhat@3.18.0' };

/** PEERS_DIR, or `chaind-bench-peers` in the system's temporary directory (kept between runs). */
export const peersDir = () => process.env.PEERS_DIR ?? join(tmpdir(), 'chaind-bench-peers');

const installedVersion = (dir: string, pkg: string): string | undefined => {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};

/**
 * Installs the pinned peers into `dir` unless they are there already; returns why it could not
 * (no npm, no registry), so the bench can say what it skipped.
 */
export function installPeers(dir: string): string | undefined {
  const wanted = Object.values(PEER_PACKAGES);
  const missing = wanted.filter((spec) => {
    const at = spec.lastIndexOf('@');
    return installedVersion(dir, spec.slice(0, at)) !== spec.slice(at + 1);
  });
  if (missing.length === 0) return undefined;
  mkdirSync(dir, { recursive: true });
  // Hardhat 3 loads its config as ESM
  if (!existsSync(join(dir, 'package.json')))
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'bench-peers', private: true, type: 'module' }),
    );
  // npm run by this Node (24): npm skips an optional native package whose `engines` exclude the Node
  // running npm, and Hardhat's EDR binding asks for Node >= 22 while a system npm may run on an older one
  const globalRoot = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  const npmCli = join(globalRoot, 'npm/bin/npm-cli.js');
  const npm = existsSync(npmCli) ? [process.execPath, npmCli] : ['npm'];
  const r = spawnSync(
    npm[0],
    [...npm.slice(1), 'install', '--no-audit', '--no-fund', '--save-exact', ...wanted],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: 600_000,
    },
  );
  if (r.status !== 0)
    return `npm install ${wanted.join(' ')} failed: ${(r.stderr || String(r.error)).slice(-400)}`;
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

export interface Peer {
  name: string;
  version: string;
  /** how it makes blocks, for the figures' labels */
  mining: string;
  child: ChildProcess;
  url: URL;
}

async function waitForRpc(child: ChildProcess, url: URL, what: string): Promise<void> {
  const exited = new Promise<never>((_, fail) =>
    child.once('exit', (code) => fail(new Error(`${what} exited with ${code}`))),
  );
  for (const started = Date.now(); ;) {
    try {
      await Promise.race([call(url, 'eth_chainId'), exited]);
      return;
    } catch (err) {
      if (child.exitCode !== null || Date.now() - started > 120_000) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The anvil executable: the platform package npm installs beside @foundry-rs/anvil. */
export function anvilBinary(dir: string): string[] {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string] ?? process.arch;
  const native = join(dir, `node_modules/@foundry-rs/anvil-${process.platform}-${arch}/bin/anvil`);
  if (existsSync(native)) return [native];
  return [process.execPath, join(dir, 'node_modules/@foundry-rs/anvil/bin.mjs')];
}

/** anvil with 1 s blocks (its interval mining mode), logging to /dev/null. */
export async function startAnvil(dir: string): Promise<Peer> {
  const port = await freePort();
  const [cmd, ...pre] = anvilBinary(dir);
  const child = spawn(cmd, [...pre, '--host', '127.0.0.1', '--port', String(port), '--block-time', '1'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = new URL(`http://127.0.0.1:${port}/`);
  await waitForRpc(child, url, 'anvil');
  return { name: 'anvil', version: await call(url, 'web3_clientVersion'), mining: '1 s blocks', child, url };
}

/** `hardhat node` (Hardhat 3, EDR) with its defaults: automine, one block per transaction. */
export async function startHardhat3(dir: string): Promise<Peer> {
  const config = join(dir, 'hardhat.config.ts');
  if (!existsSync(config)) writeFileSync(config, 'export default {};\n');
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      join(dir, 'node_modules/hardhat/dist/src/cli.js'),
      '--config',
      config,
      'node',
      '--hostname',
      '127.0.0.1',
      '--port',
      String(port),
    ],
    {
      cwd: dir,
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = new URL(`http://127.0.0.1:${port}/`);
  await waitForRpc(child, url, 'hardhat node');
  return {
    name: 'hardhat',
    version: `hardhat ${installedVersion(dir, 'hardhat')} (${await call(url, 'web3_clientVersion')})`,
    mining: 'automine',
    child,
    url,
  };
}

/**
 * Network mode: a one-validator `chaind testnet` (chaind as the ABCI++ application of its cometbft
 * process) with its default consensus timing; undefined when cometbft is not installed.
 */
export async function startChaindNetwork(scratch: string): Promise<Peer | string> {
  if (!existsSync(installedBinaryPath())) return 'cometbft is not installed (npm run install:cometbft)';
  // the testnet's ports are fixed when its homes are written, so one another process took meanwhile
  // fails the start: a new testnet on other ports then
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNetworkOnce(join(scratch, `net-${attempt}`));
    } catch (err) {
      if (attempt === 3) throw err;
      process.stderr.write(`chaind_network: ${(err as Error).message}; again on other ports\n`);
    }
  }
}

async function startNetworkOnce(out: string): Promise<Peer> {
  // below Linux's ephemeral range (32768-60999), where the load client's own connections come from
  const base = 20_000 + 10 * Math.floor(Math.random() * 1200);
  const made = spawnSync(
    process.execPath,
    [CHAIND, 'testnet', '--validators', '1', '--output', out, '--base-port', String(base)],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`chaind testnet failed: ${made.stderr}`);
  const manifest = JSON.parse(readFileSync(join(out, 'testnet.json'), 'utf8')) as {
    nodes: { home: string }[];
  };
  // logging to a file as the dev variants do: a pipe read here would put every log line of the node
  // and of its cometbft through the load client's event loop
  const { child, url } = await startChaind(
    ['start', '--home', manifest.nodes[0].home],
    {},
    { freePorts: false },
  );
  await waitForRpc(child, url, 'chaind (network)');
  // transactions go through cometbft's mempool: wait until consensus runs (its first blocks)
  while (Number(await call(url, 'eth_blockNumber')) < 2) await new Promise((r) => setTimeout(r, 100));
  return {
    name: 'chaind_network',
    version: await call(url, 'web3_clientVersion'),
    mining: 'CometBFT, 1 validator, default timeouts',
    child,
    url,
  };
}

export const wrkInstalled = () => spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;

/**
 * wrk POSTing one JSON-RPC body on `connections` keep-alive connections (one thread) for `seconds`;
 * resolves with its requests per second. Non-2xx answers make it fail.
 */
export function runWrk(
  url: URL,
  body: string,
  seconds: number,
  connections: number,
  scratch: string,
): Promise<number> {
  const script = join(scratch, 'wrk-post.lua');
  writeFileSync(
    script,
    [
      'wrk.method = "POST"',
      `wrk.body = ${JSON.stringify(body)}`,
      'wrk.headers["Content-Type"] = "application/json"',
      '',
    ].join('\n'),
  );
  return new Promise((ok, fail) => {
    const child = spawn('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '-s', script, url.href], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.once('exit', (code) => {
      const rate = /Requests\/sec:\s+([\d.]+)/.exec(out);
      if (code !== 0 || !rate) return fail(new Error(`wrk exited with ${code}: ${out}`));
      if (/Non-2xx/.test(out)) return fail(new Error(`wrk saw errors: ${out}`));
      ok(Number(rate[1]));
    });
  });
}
