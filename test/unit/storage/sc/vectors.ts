/**
 * Loads the hash vectors. The authoritative files are ../shared/vectors (or $SHARED_VECTORS); a copy
 * lives beside this file so the tests also run from a clone without the shared folder, and
 * vectors-copy.test.ts fails if the copy drifts from the shared files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SHARED_DIR =
  process.env.SHARED_VECTORS ?? join(import.meta.dirname, '../../../../../shared/vectors');
export const COPY_DIR = join(import.meta.dirname, 'vectors');

export function loadVector<T = any>(name: string): T {
  const dir = existsSync(join(SHARED_DIR, name)) ? SHARED_DIR : COPY_DIR;
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as T;
}
