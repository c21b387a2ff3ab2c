/**
 * Hardhat's node for the comparison bench (rpc-vs-hardhat.bench.ts): started from a scratch npm
 * project (HARDHAT_DIR) with chaind's chain id, fed the same signed txs at the same heights, and the
 * CPU time of a process tree (what a request costs a node, whatever else runs on the machine).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { call, CHAIN_ID, hex, type ChainTx } from './rpc-common.ts';

export const hardhatCli = (dir: string) => join(dir, 'node_modules/hardhat/internal/cli/cli.js');
export const hardhatInstalled = (dir: string | undefined): dir is string =>
  dir !== undefined && existsSync(hardhatCli(dir));

/** User + system CPU time of `pid` and its descendants, in ms (Linux /proc; NaN elsewhere). */
export function treeCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime in clock ticks (USER_HZ = 100 on Linux)
    let ms = (Number(f[11]) + Number(f[12])) * 10;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      for (const c of children ? children.split(' ') : []) ms += treeCpuMs(Number(c));
    }
    return ms;
  } catch {
    return NaN;
  }
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/** Starts `hardhat node` with chaind's chain id; resolves once it answers eth_chainId. */
export async function startHardhat(
  hardhatDir: string,
  configDir: string,
): Promise<{ child: ChildProcess; url: URL }> {
  const config = join(configDir, 'hardhat.config.cjs');
  // automine: each replayed tx is mined into its own block, as on chaind
  writeFileSync(config, `module.exports = { networks: { hardhat: { chainId: ${CHAIN_ID} } } };\n`);
  const port = await freePort();
  // its per-request console log goes to /dev/null, the cheapest place a default `hardhat node` can log to
  const child = spawn(
    process.execPath,
    [hardhatCli(hardhatDir), '--config', config, 'node', '--hostname', '127.0.0.1', '--port', String(port)],
    {
      cwd: hardhatDir,
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = new URL(`http://127.0.0.1:${port}/`);
  const exited = new Promise<never>((_, fail) =>
    child.once('exit', (code) => fail(new Error(`hardhat node exited with ${code}`))),
  );
  for (let started = Date.now(); ;) {
    try {
      const id = await Promise.race([call(url, 'eth_chainId'), exited]);
      if (BigInt(id) === CHAIN_ID) break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() - started > 60_000) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return { child, url };
}

/** Replays chaind's txs on Hardhat at the same heights, then mines up to chaind's latest height. */
export async function replay(url: URL, txs: ChainTx[], latest: number): Promise<void> {
  let height = Number(await call(url, 'eth_blockNumber'));
  const mineTo = async (target: number) => {
    if (target > height) await call(url, 'hardhat_mine', [hex(target - height)]);
    height = target;
  };
  for (const tx of txs) {
    await mineTo(tx.block - 1);
    const hash = await call(url, 'eth_sendRawTransaction', [tx.raw]);
    if (hash !== tx.hash) throw new Error(`hardhat hashed ${tx.hash} as ${hash}`);
    height++;
  }
  await mineTo(latest);
  const hhLatest = Number(await call(url, 'eth_blockNumber'));
  if (hhLatest !== latest) throw new Error(`hardhat at height ${hhLatest}, chaind at ${latest}`);
  const last = await call(url, 'eth_getTransactionReceipt', [txs[txs.length - 1].hash]);
  if (Number(last.blockNumber) !== txs[txs.length - 1].block) throw new Error('hardhat mined a tx elsewhere');
}
