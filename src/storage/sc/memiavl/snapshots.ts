/**
 * The snapshot directory of the memiavl multi-tree:
 *   snapshot-<version>/manifest.json {version, stores}, snapshot-<version>/<store>/...  one per tree
 *   current           name of the snapshot to open (replaced by write-then-rename, so it is atomic)
 *   tmp-*             a snapshot being written; deleted on open (a crash left it half-written)
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDir, writeDurable, writeTreeSnapshot } from './snapshot.ts';
import { SnapshotCorruptError, TreeSnapshot, type SnapshotMeta } from './snapshot-file.ts';
import type { TreeView } from './tree.ts';

const PREFIX = 'snapshot-';
export const snapshotName = (version: number): string => `${PREFIX}${String(version).padStart(20, '0')}`;
const storeDir = (name: string): string => encodeURIComponent(name);

export interface Manifest {
  version: number;
  stores: string[];
}

/** Versions of complete snapshots (those with a manifest), ascending. */
export function listSnapshots(dir: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.startsWith(PREFIX) && existsSync(join(dir, n, 'manifest.json')))
    .map((n) => Number(n.slice(PREFIX.length)))
    .sort((a, b) => a - b);
}

/** The version `current` points at, or the newest complete snapshot if the pointer is missing. */
export function currentSnapshot(dir: string): number | undefined {
  const p = join(dir, 'current');
  if (existsSync(p)) {
    const name = readFileSync(p, 'utf8').trim();
    if (existsSync(join(dir, name, 'manifest.json'))) return Number(name.slice(PREFIX.length));
  }
  return listSnapshots(dir).at(-1);
}

export function setCurrent(dir: string, version: number): void {
  const tmp = join(dir, 'current.tmp');
  writeDurable(tmp, snapshotName(version));
  renameSync(tmp, join(dir, 'current'));
  fsyncDir(dir);
}

export function removeTempDirs(dir: string): void {
  if (!existsSync(dir)) return;
  for (const n of readdirSync(dir))
    if (n.startsWith('tmp-')) rmSync(join(dir, n), { recursive: true, force: true });
}

/**
 * Writes every tree of one version into a temp dir, then renames it into place and points `current`
 * at it. A crash at any point leaves either the old or the new snapshot current, never a partial one.
 */
export async function writeSnapshot(
  dir: string,
  version: number,
  views: Map<string, TreeView>,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `tmp-${snapshotName(version)}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  const stores = [...views.keys()].sort();
  for (const name of stores) await writeTreeSnapshot(views.get(name)!, join(tmp, storeDir(name)));
  writeDurable(join(tmp, 'manifest.json'), JSON.stringify({ version, stores } satisfies Manifest));
  fsyncDir(tmp);
  const final = join(dir, snapshotName(version));
  rmSync(final, { recursive: true, force: true });
  renameSync(tmp, final);
  fsyncDir(dir);
  setCurrent(dir, version);
}

export function loadSnapshot(dir: string, version: number): Map<string, TreeSnapshot> {
  const base = join(dir, snapshotName(version));
  const manifestPath = join(base, 'manifest.json');
  if (!existsSync(manifestPath)) throw new SnapshotCorruptError(base, 'manifest.json is missing');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  if (manifest.version !== version)
    throw new SnapshotCorruptError(base, `manifest says version ${manifest.version}`);
  const out = new Map<string, TreeSnapshot>();
  for (const name of manifest.stores) {
    const snap = TreeSnapshot.load(join(base, storeDir(name)));
    if (snap.version !== version)
      throw new SnapshotCorruptError(base, `tree ${name} is at version ${snap.version}`);
    out.set(name, snap);
  }
  return out;
}

/** Root hash per store recorded in a snapshot's meta files, if they are readable. */
export function recordedRootHashes(dir: string, version: number): Map<string, string> | undefined {
  try {
    const base = join(dir, snapshotName(version));
    const manifest = JSON.parse(readFileSync(join(base, 'manifest.json'), 'utf8')) as Manifest;
    const out = new Map<string, string>();
    for (const name of manifest.stores) {
      out.set(
        name,
        (JSON.parse(readFileSync(join(base, storeDir(name), 'meta.json'), 'utf8')) as SnapshotMeta).rootHash,
      );
    }
    return out;
  } catch {
    return undefined;
  }
}

export function deleteSnapshot(dir: string, version: number): void {
  rmSync(join(dir, snapshotName(version)), { recursive: true, force: true });
}
