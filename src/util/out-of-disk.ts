/**
 * A write refused because the filesystem is full (ENOSPC) or the user's quota is spent (EDQUOT):
 * the one failure of a store write that freeing space cures. Each store turns its engine's form of
 * it (an fs error code, lmdb-js's errno 28 behind a "Commit failed", a Go "no space left on device"
 * line) into an `OutOfDiskError` naming the directory it was writing, so that whoever stops the node
 * can say where space ran out.
 */
import { statfsSync } from 'node:fs';
import { ChainError } from './errors.ts';

export class OutOfDiskError extends ChainError {
  /** The directory whose write failed. */
  readonly dir: string;
  constructor(dir: string, cause?: unknown) {
    super('OUT_OF_DISK', `no space left on device writing ${dir}`, { cause });
    this.dir = dir;
  }
}

const CODES = new Set(['ENOSPC', 'EDQUOT']);
/** errno values on Linux: ENOSPC 28, EDQUOT 122 (negative as libuv reports them). */
const ERRNOS = new Set([28, 122, -28, -122]);
const TEXT = /no space left on device|disk quota exceeded/i;

/** Whether `err` is the OS saying the disk is full, in any of the forms the engines throw it. */
export function isNoSpace(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: unknown; errno?: unknown };
  return (
    CODES.has(String(e.code)) ||
    ERRNOS.has(Number(e.code)) ||
    ERRNOS.has(Number(e.errno)) ||
    TEXT.test(e.message)
  );
}

/**
 * Whether `err` is an I/O error (EIO) on a filesystem that has next to nothing left: lmdb reports a
 * page it could not flush to a full tmpfs so, and only the free space tells it from a failing disk.
 */
function isIoErrorOnFullDisk(err: unknown, dir: string): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: unknown; errno?: unknown };
  if (!(e.code === 'EIO' || Math.abs(Number(e.code)) === 5 || Math.abs(Number(e.errno)) === 5)) return false;
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize < NEARLY_FULL_BYTES;
  } catch {
    return false;
  }
}
const NEARLY_FULL_BYTES = 1 << 20;

/** `err` as an OutOfDiskError of `dir` when the disk was full, else `err` unchanged. */
export function outOfDiskOr(err: unknown, dir: string): unknown {
  if (err instanceof OutOfDiskError || !(isNoSpace(err) || isIoErrorOnFullDisk(err, dir))) return err;
  return new OutOfDiskError(dir, err);
}

/** The OutOfDiskError in `err`'s cause chain, if the disk being full is what failed. */
export function outOfDiskIn(err: unknown): OutOfDiskError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++)
    if (e instanceof OutOfDiskError) return e;
  return undefined;
}

/**
 * The directory a Go error text names as the file it could not write (`write <path>: no space left
 * on device`, `open <path>: disk quota exceeded`): the file's directory. Undefined when the text is
 * not such an error.
 */
export function noSpaceDirIn(text: string): string | undefined {
  const m =
    /(?:write|open|sync|mkdir|create|rename|truncate)\s+(\/[^\s:]+):\s*(?:no space left on device|disk quota exceeded)/i.exec(
      text,
    );
  if (!m) return TEXT.test(text) ? '' : undefined;
  const path = m[1];
  const slash = path.lastIndexOf('/');
  return slash > 0 ? path.slice(0, slash) : path;
}
