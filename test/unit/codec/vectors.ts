/** Loads the shared hash vectors (../shared/vectors from the repo root, or SHARED_VECTORS). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.SHARED_VECTORS ?? join(import.meta.dirname, '../../../../shared/vectors');

export function loadVector<T = any>(name: string): T {
  return JSON.parse(readFileSync(join(dir, name), 'utf8')) as T;
}
