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

/**
 * Runs chaind to completion. The test process's Node (24) runs the child. `timeoutMs` only catches a
 * command that hangs, so it is generous: on a machine loaded by other work (load average 10-20 on 2
 * cores) a command that takes 5 s idle takes a minute. A command still running at the deadline is
 * killed and this throws, saying so (its exit code would be null, which reads as a crash).
 */
export function runChaind(
  args: string[],
  env: Record<string, string> = {},
  { timeoutMs = 120_000 }: { timeoutMs?: number } = {},
): RunResult {
  const r = spawnSync(process.execPath, [CHAIND, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: timeoutMs,
  });
  if (r.status === null)
    throw new Error(
      `chaind ${args.join(' ')}: ${r.error ? `not done within ${timeoutMs} ms (${r.error.message})` : `killed by ${r.signal}`}; stdout:\n${r.stdout}\nstderr:\n${r.stderr}`,
    );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A temporary home, removed after the test. node:test runs `after` hooks in the order they were
 * registered and skips the rest once one throws, so a hook registered later (a node's stop) would
 * run only after this one: the removal first stops every node still running from inside the
 * directory, or its files would be deleted under it (and a write racing the removal, ENOTEMPTY,
 * would leave the nodes running after the test).
 */
export function tempHome(t: { after(fn: () => void): void }, prefix = 'chaind-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // (the hook is async; node:test awaits it whatever the callback type says)
  t.after((async () => {
    await Promise.all([...running].filter((p) => p.home?.startsWith(dir)).map((p) => p.stopWithin(10_000)));
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }) as () => void);
  return dir;
}

/** Every spawned chaind not yet exited; a test process that exits leaves none behind. */
const running = new Set<ChaindProcess>();
process.on('exit', () => {
  // SIGTERM: a network-mode node then stops its CometBFT child too (SIGKILL would orphan it)
  for (const p of running) p.child.kill('SIGTERM');
});

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
  /** The `--home` it runs on, if given. */
  readonly home: string | undefined;

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
    const h = args.indexOf('--home');
    this.home = h >= 0 ? resolve(args[h + 1]) : undefined;
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
    this.exited = new Promise((res) =>
      this.child.on('close', (code, signal) => {
        running.delete(this);
        res({ code, signal });
      }),
    );
    running.add(this);
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

  /** SIGTERM, then SIGKILL if it has not exited within `ms`. */
  async stopWithin(ms: number) {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    try {
      return await this.stop('SIGTERM');
    } finally {
      clearTimeout(timer);
    }
  }
}
