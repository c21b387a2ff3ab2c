import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { LockHeldError } from './errors.ts';

/**
 * An exclusive, process-level lock on a directory: a `LOCK` file holding the owner's pid and start
 * time. Node has no flock(2), so liveness is checked instead: a lock whose owner is gone (killed with
 * SIGKILL, machine rebooted) is stale and taken over; the start time guards against pid reuse.
 */
export interface DirLock {
  readonly path: string;
  release(): void;
}

const LOCK_FILE = 'LOCK';

export function acquireDirLock(dir: string): DirLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me = `${process.pid} ${processStartTime(process.pid) ?? ''}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, me);
      closeSync(fd);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(path, 'utf8') === me) rmSync(path);
          } catch {
            // already gone: nothing to release
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(path);
      if (holder && isAlive(holder.pid, holder.start)) throw new LockHeldError(path, holder.pid);
      rmSync(path, { force: true }); // stale: its owner is gone
    }
  }
  throw new LockHeldError(path);
}

function readHolder(path: string): { pid: number; start?: string } | undefined {
  try {
    const [pid, start] = readFileSync(path, 'utf8').trim().split(' ');
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 ? { pid: n, start: start || undefined } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the recorded owner still runs. A zombie (killed, not yet reaped by its parent: a supervisor
 * restarting at once after a SIGKILL sees this for a moment) answers kill(pid, 0) like a live process,
 * but it holds nothing any more, so it counts as gone; so does a pid now used by a process that started
 * at another time than the one recorded.
 */
function isAlive(pid: number, start?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = procStat(pid);
  if (stat === undefined) return true; // no /proc (not Linux): kill(pid, 0) is all there is
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return start === undefined || stat.start === start;
}

function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.start;
}

/**
 * Fields 3 (state: R, S, D, Z for a zombie, X for dead, …) and 22 (start time in clock ticks since
 * boot) of /proc/<pid>/stat (Linux only). Fields are counted after the last ')', because the command
 * name in field 2 may itself hold spaces and parentheses.
 */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], start: fields[19] };
  } catch {
    return undefined;
  }
}
