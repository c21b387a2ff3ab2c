/**
 * Loads the hash vectors from test/fixtures/vectors. When $SHARED_VECTORS names another copy of them
 * (the upstream set), that copy is read instead, and vectors-copy.test.ts checks that the two agree.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The upstream copy, when one is named ('' otherwise: it does not exist). */
export const SHARED_DIR = process.env.SHARED_VECTORS ?? '';
export const COPY_DIR = join(import.meta.dirname, '../../../fixtures/vectors');

export function loadVector<T = any>(name: string): T {
  const dir = SHARED_DIR !== '' && existsSync(join(SHARED_DIR, name)) ? SHARED_DIR : COPY_DIR;
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as T;
}
