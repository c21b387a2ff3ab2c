/**
 * A node's data directory on a small disk of its own, for the out-of-disk test and the chaos harness:
 * a tmpfs of N MB mounted outside the home, with `<home>/data` made a link to it (the node's files
 * moved onto it first). Mounted outside the home so the temporary home can be deleted whatever order
 * the cleanup hooks run in; unmounted lazily, since a node may still hold files on it. Filling is a
 * ballast file that leaves a chosen number of bytes free; releasing it deletes the file.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdtempSync,
  openSync,
  rmSync,
  statfsSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BALLAST = '.ballast';

export interface SmallDisk {
  /** Where the tmpfs is mounted (`<home>/data` links here). */
  mountpoint: string;
  /** Bytes free on it now. */
  free(): number;
  /**
   * Writes a ballast file that leaves about `leaveBytes` free (tmpfs rounds to pages), or none when a
   * writer on the disk takes the space first.
   */
  fill(leaveBytes: number): void;
  /** Deletes the ballast: the space it held is free again. */
  release(): void;
  /** Unmounts (lazily: a process may still hold files there) and removes the mountpoint. */
  unmount(): void;
}

/**
 * Why a tmpfs cannot be mounted here (not root, or the mount is refused), or undefined when it can:
 * checked by mounting and unmounting one of 1 MB. In CI, which runs as root, a refusal is an error.
 */
export function smallDiskUnavailable(): string | undefined {
  let reason: string | undefined;
  if (process.getuid?.() !== 0) reason = 'mounting a tmpfs needs root';
  else {
    const dir = mkdtempSync(join(tmpdir(), 'chaind-disk-probe-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'pipe' });
      execFileSync('umount', [dir], { stdio: 'pipe' });
    } catch (err) {
      reason = `mount -t tmpfs failed: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (reason && process.env.CI) throw new Error(`CI runs as root and must mount a tmpfs: ${reason}`);
  return reason;
}

/**
 * Mounts a tmpfs of `mb` MB and puts `<home>/data` on it (what the directory held is copied over), for
 * a node that has not started. Unmounted by `t.after`. Call `smallDiskUnavailable` first.
 */
export function mountSmallDataDir(t: { after(fn: () => void): void }, home: string, mb: number): SmallDisk {
  const mountpoint = mkdtempSync(join(tmpdir(), 'chaind-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', mountpoint], { stdio: 'pipe' });
  let mounted = true;
  const disk: SmallDisk = {
    mountpoint,
    free: () => {
      const s = statfsSync(mountpoint);
      return s.bavail * s.bsize;
    },
    fill: (leaveBytes) => {
      const fd = openSync(join(mountpoint, BALLAST), 'a');
      try {
        const chunk = Buffer.alloc(1 << 20, 0xa5);
        for (let left = disk.free() - leaveBytes; left > 0; left -= chunk.length)
          writeSync(fd, chunk, 0, Math.min(left, chunk.length));
      } catch (err) {
        // the node wrote meanwhile and took the last bytes: the disk is full, which is the point
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
    },
    release: () => rmSync(join(mountpoint, BALLAST), { force: true }),
    unmount: () => {
      if (!mounted) return;
      mounted = false;
      execFileSync('umount', ['-l', mountpoint], { stdio: 'pipe' });
      rmSync(mountpoint, { recursive: true, force: true });
    },
  };
  t.after(() => disk.unmount());
  const data = join(home, 'data');
  if (existsSync(data)) {
    cpSync(data, mountpoint, { recursive: true });
    rmSync(data, { recursive: true, force: true });
  }
  symlinkSync(mountpoint, data);
  return disk;
}
