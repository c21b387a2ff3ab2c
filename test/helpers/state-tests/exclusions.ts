/**
 * Cases that are not run, each with its reason. A test is named by its file (relative to
 * GeneralStateTests/) and optionally its test name; `engines` limits an exclusion to some engines.
 */
import type { StateCase } from './corpus.ts';

export interface Exclusion {
  file: string;
  test?: string;
  engines?: readonly string[];
  reason: string;
}

export const EXCLUSIONS: readonly Exclusion[] = [];

export function exclusionOf(c: StateCase, engine: string): string | undefined {
  for (const e of EXCLUSIONS) {
    if (e.file !== c.file) continue;
    if (e.test !== undefined && e.test !== c.test) continue;
    if (e.engines !== undefined && !e.engines.includes(engine)) continue;
    return e.reason;
  }
  return undefined;
}
