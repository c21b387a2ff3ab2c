/**
 * Loads the hash vectors: test/fixtures/vectors, or the directory $SHARED_VECTORS names (to check the
 * code against another copy of the same vectors).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.SHARED_VECTORS ?? join(import.meta.dirname, '../../fixtures/vectors');

export function loadVector<T = any>(name: string): T {
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as T;
}
