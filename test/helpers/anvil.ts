/**
 * anvil beside chaind in end-to-end comparisons: the binary the Foundry example installs
 * (`npm run install:examples`), started on a free 127.0.0.1 port and stopped with the test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { freePort } from './free-port.ts';
import { result } from './json-rpc.ts';

export const ANVIL = join(resolve(import.meta.dirname, '../../examples/foundry'), 'node_modules/.bin/anvil');

/** Starts anvil with `flags` and answers its URL once it serves eth_chainId (30 s at most). */
export async function startAnvil(t: { after(fn: () => unknown): void }, flags: string[]): Promise<string> {
  const port = await freePort();
  const child: ChildProcess = spawn(ANVIL, ['--port', String(port), '--silent', ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGTERM');
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await result(url, 'eth_chainId', []);
      return url;
    } catch {
      if (child.exitCode !== null) throw new Error(`anvil exited: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`anvil did not answer within 30 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
