/**
 * Crash test: a child process applying change sets (split layout, five EVM databases, async writes
 * on and off, periodic pruning) is killed with SIGKILL at random moments. Each reopen must recover to
 * a `latest` at or above the last version the child saw acknowledged, with every version between
 * `earliest` and `latest` readable exactly as written and nothing beyond `latest`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openStateStore, SSVersionTooHighError } from '../../../src/storage/ss/index.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { prng, ReferenceModel, tempDir } from '../../unit/storage/ss/helpers.ts';
import { changeSet, crashOptions, keysOf, STORES } from './workload.ts';

const ROUNDS = 4;
const child = join(import.meta.dirname, 'crash-child.ts');
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : 'absent');

/** Runs the child until it has acknowledged at least a few versions past `minAcks`, then kills it
 * after a random extra delay; returns the last acknowledged version. */
function runAndKill(
  dataDir: string,
  buffer: number,
  delayMs: number,
): Promise<{ opened: number; acked: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, dataDir, String(buffer)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let opened = -1;
    let acked = 0;
    let timer: NodeJS.Timeout | undefined;
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) {
        const [what, n] = line.split(' ');
        if (what === 'opened') {
          opened = Number(n);
          timer = setTimeout(() => proc.kill('SIGKILL'), delayMs);
        } else if (what === 'applied') acked = Number(n);
      }
    });
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL' && opened >= 0) resolve({ opened, acked });
      else reject(new Error(`child exited with ${code ?? signal} before being killed: ${err}`));
    });
  });
}

describe('SS crash recovery (SIGKILL)', () => {
  for (const buffer of [0, 8]) {
    test(`async write buffer ${buffer}`, async (t) => {
      const dir = tempDir('ss-crash-');
      const rand = prng(buffer + 101);
      try {
        let lastAcked = 0;
        for (let round = 0; round < ROUNDS; round++) {
          const { opened, acked } = await runAndKill(dir.path, buffer, 250 + Math.floor(rand() * 700));
          assert.ok(
            opened >= lastAcked,
            `round ${round}: reopened at ${opened}, below acknowledged ${lastAcked}`,
          );
          lastAcked = Math.max(lastAcked, acked);

          const ss = await openStateStore(crashOptions(dir.path, buffer), silentLogger);
          try {
            const latest = ss.latestVersion();
            const earliest = ss.earliestVersion();
            assert.ok(latest >= lastAcked, `round ${round}: latest ${latest} < acknowledged ${lastAcked}`);
            assert.ok(latest > 0 && earliest >= 1 && earliest <= latest);
            t.diagnostic(
              `round ${round}: acknowledged ${acked}, recovered latest ${latest}, earliest ${earliest}`,
            );
            await assert.rejects(ss.get('acc', keysOf('acc')[0], latest + 1), SSVersionTooHighError);
            const model = new ReferenceModel();
            for (let v = 1; v <= latest; v++) model.apply(v, changeSet(v));
            // Every key of every store at the newest versions and a random sample of older ones.
            const versions = new Set([latest, latest - 1, earliest].filter((v) => v >= earliest));
            while (versions.size < 12) versions.add(earliest + Math.floor(rand() * (latest - earliest + 1)));
            for (const v of versions) {
              for (const store of STORES) {
                for (const key of keysOf(store)) {
                  const got = await ss.get(store, key, v);
                  assert.equal(
                    hex(got),
                    hex(model.get(store, key, v)),
                    `round ${round}: ${store}/${hex(key)} @${v}`,
                  );
                }
              }
            }
            if (earliest > 1) assert.equal(await ss.get('bank', keysOf('bank')[0], earliest - 1), undefined);
          } finally {
            await ss.close();
          }
        }
        assert.ok(lastAcked > 40, `the child made progress (${lastAcked} versions)`);
      } finally {
        dir.remove();
      }
    });
  }
});
