/**
 * A supervisor restarts chaind at once after a SIGKILL, before the killed process is reaped: the lock
 * it left must be taken over, because a zombie holds nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CHAIND, ChaindProcess, FREE_PORT_ENV, runChaind, tempHome } from '../helpers/chaind.ts';

/** Polls `check` until it returns a value or `ms` pass. */
async function until<T>(what: string, check: () => T | undefined, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Field 3 of /proc/<pid>/stat: R, S, D, Z (zombie), …; undefined once the pid is gone. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

test('a restart right after SIGKILL succeeds while the killed chaind is still an unreaped zombie', async (t) => {
  if (!existsSync('/proc/self/stat')) return t.skip('needs Linux /proc');
  const home = tempHome(t);
  assert.equal(runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home, '--engine', 'embedded']).code, 0);
  const log = join(home, 'first.log');
  // The shell starts chaind in the background, prints its pid and becomes `sleep`, which never waits
  // for children: the killed chaind stays a zombie (as under a supervisor that has not reaped it yet)
  // until the sleep ends.
  const parent = spawn(
    'sh',
    [
      '-c',
      `"$0" "$1" start --home "$2" --log_format json >"$3" 2>&1 & echo $!; exec sleep 120`,
      process.execPath,
      CHAIND,
      home,
      log,
    ],
    { env: { ...process.env, ...FREE_PORT_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.after(() => parent.kill('SIGKILL')); // the sleep; its zombie child is reaped by init then
  let out = '';
  parent.stdout!.on('data', (d) => (out += d));
  const pid = await until('the pid of chaind', () => (/^(\d+)\n/.exec(out) ? Number(RegExp.$1) : undefined));
  t.after(() => {
    if (procState(pid) !== undefined && procState(pid) !== 'Z') process.kill(pid, 'SIGKILL');
  });
  await until('the first node to start', () =>
    existsSync(log) && readFileSync(log, 'utf8').includes('"node started"') ? true : undefined,
  );
  const lock = readFileSync(join(home, 'data', 'LOCK'), 'utf8');
  assert.equal(lock.split(' ')[0], String(pid), 'the first node holds the data lock');

  process.kill(pid, 'SIGKILL');
  await until('chaind to become a zombie', () => (procState(pid) === 'Z' ? true : undefined));

  const again = new ChaindProcess(['start', '--home', home, '--log_format', 'json']);
  t.after(() => again.stop('SIGKILL'));
  const started = await Promise.race([
    again.waitForLine((l) => l.includes('"node started"'), 60_000).then(() => true),
    again.exited.then(() => false),
  ]);
  assert.ok(started, `the restart failed: ${again.stderr}`);
  assert.equal(procState(pid), 'Z', 'the killed process was still unreaped during the restart');
  assert.equal((await again.stop('SIGTERM')).code, 0);
});
