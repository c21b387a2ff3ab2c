/** Helpers that run the real `chaind` CLI as a child process, as an operator would. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const CHAIND = resolve(import.meta.dirname, '../../src/bin/chaind.ts');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs chaind to completion. The test process's Node (24) runs the child. */
export function runChaind(args: string[], env: Record<string, string> = {}): RunResult {
  const r = spawnSync(process.execPath, [CHAIND, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function tempHome(t: { after(fn: () => void): void }, prefix = 'chaind-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every listener of a spawned node on a free port (127.0.0.1), as environment variables. */
export const FREE_PORT_ENV = {
  CHAIND_EVM_HTTP_PORT: '0',
  CHAIND_EVM_WS_PORT: '0',
  CHAIND_API_ADDRESS: 'tcp://127.0.0.1:0',
  CHAIND_GRPC_ADDRESS: '127.0.0.1:0',
  CHAIND_RPC_LADDR: 'tcp://127.0.0.1:0',
  CHAIND_INSTRUMENTATION_PROMETHEUS_LISTEN_ADDR: '127.0.0.1:0',
};

/** A running chaind whose stdout lines are collected and can be awaited. */
export class ChaindProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = '';
  private waiters: { pred: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /**
   * `fdLimit`: the process runs with this many file descriptors at most (soft and hard limit).
   * `configuredPorts`: listen where the home's config says (a testnet's homes), not on free ports.
   */
  constructor(
    args: string[],
    env: Record<string, string> = {},
    opts: { fdLimit?: number; configuredPorts?: boolean } = {},
  ) {
    const [command, argv] =
      opts.fdLimit === undefined
        ? [process.execPath, [CHAIND, ...args]]
        : ['sh', ['-c', `ulimit -n ${opts.fdLimit} && exec "$0" "$@"`, process.execPath, CHAIND, ...args]];
    this.child = spawn(command, argv, {
      // free JSON-RPC and REST ports, so nodes of concurrently running test files do not contend for 8545/8546/1317
      env: { ...process.env, ...(opts.configuredPorts ? {} : FREE_PORT_ENV), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.lines.push(line);
      this.waiters = this.waiters.filter((w) => (w.pred(line) ? (w.resolve(line), false) : true));
    });
    this.child.stderr!.on('data', (d) => (this.stderr += d));
    // 'close', not 'exit': only then has all of the child's output been read (lines a test checks after
    // the exit, such as the last one, are in `lines`)
    this.exited = new Promise((res) => this.child.on('close', (code, signal) => res({ code, signal })));
  }

  /** Resolves with the first line (already seen or future) matching `pred`; rejects after `ms`. */
  waitForLine(pred: (line: string) => boolean, ms = 20_000): Promise<string> {
    const seen = this.lines.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolveLine, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no matching line within ${ms} ms; stdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`,
            ),
          ),
        ms,
      );
      this.waiters.push({
        pred,
        resolve: (l) => {
          clearTimeout(timer);
          resolveLine(l);
        },
      });
    });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM') {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}
