/**
 * Runs the real `chaind` CLI to completion without blocking the test process: a command that talks
 * to a node the test also spawned must not stop the test from reading that node's output.
 */
import { execFile } from 'node:child_process';
import { CHAIND, type RunResult } from './chaind.ts';

export function runChaindAsync(args: string[], { timeoutMs = 180_000 }: { timeoutMs?: number } = {}) {
  return new Promise<RunResult>((resolve, reject) => {
    execFile(
      process.execPath,
      [CHAIND, ...args],
      { encoding: 'utf8', timeout: timeoutMs },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        if (code === null)
          return reject(
            new Error(
              `chaind ${args.join(' ')}: not done within ${timeoutMs} ms or killed (${err?.message}); stdout:\n${stdout}\nstderr:\n${stderr}`,
            ),
          );
        resolve({ code, stdout, stderr });
      },
    );
  });
}
