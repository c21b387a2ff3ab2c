/** `chaind dev` spawned as a user runs it, and what its start banner says. */
import { rmSync } from 'node:fs';
import { ChaindProcess } from './chaind.ts';

export interface DevBanner {
  evmUrl: string;
  wsUrl: string;
  consensusRpc: string;
  rest: string;
  accounts: { evm: string; cosmos: string; key: string }[];
  /** every line of the banner */
  lines: string[];
}

const RULE = /^={20,}$/;

/** Starts `chaind dev <args>` and resolves once its banner (between two rules) is printed. */
export async function startDev(
  t: { after(fn: () => unknown): void },
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ node: ChaindProcess; banner: DevBanner }> {
  const node = new ChaindProcess(['dev', ...args], env);
  t.after(async () => {
    // SIGTERM, as a user's Ctrl-C: the node removes its throwaway home on the way out
    await node.stopWithin(10_000);
    // one that had to be killed could not; a temporary directory per test run would pile up
    const home = node.lines
      .map((l) => /^chaind dev chain — home (\S+) \(removed on exit\)$/.exec(l)?.[1])
      .find((h) => h !== undefined);
    if (home) rmSync(home, { recursive: true, force: true });
  });
  const first = await node.waitForLine((l) => RULE.test(l), 60_000);
  const start = node.lines.indexOf(first);
  await node.waitForLine((l) => RULE.test(l) && node.lines.indexOf(l, start + 1) > start);
  const end = node.lines.findIndex((l, i) => i > start && RULE.test(l));
  const lines = node.lines.slice(start + 1, end);
  const url = (name: string) => {
    const row = lines.find((l) => l.trimStart().startsWith(name));
    if (!row) throw new Error(`no ${name} in the banner:\n${lines.join('\n')}`);
    return row.trim().split(/\s+/).at(-1)!;
  };
  const accounts = lines
    .map((l) => /^\s+\(\d+\) (0x[0-9a-fA-F]{40})\s+(chain1\w+)\s+key (0x[0-9a-f]{64})$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ evm: m[1], cosmos: m[2], key: m[3] }));
  return {
    node,
    banner: {
      evmUrl: url('EVM JSON-RPC'),
      wsUrl: url('EVM WebSocket'),
      consensusRpc: url('consensus RPC'),
      rest: url('REST'),
      accounts,
      lines,
    },
  };
}
