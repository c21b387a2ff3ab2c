/**
 * Runs state-test cases on an engine and judges each against the test's expectation: the post-state
 * root and logs hash must match; a case that expects an exception must have its transaction rejected
 * (the root is then the pre-state's, per the test format). Excluded cases (exclusions.ts) are not run.
 */
import { createHash } from 'node:crypto';
import type { StateCase } from './corpus.ts';
import type { Engine, EngineResult } from './engine.ts';
import { type ExclusionScope, exclusionOf } from './exclusions.ts';

export type EngineName = 'ethereumjs' | 'chaind' | 'revm';
/** In the order a process runs them: the chaind engine's patches are process-wide, so it comes last. */
export const ENGINES: readonly EngineName[] = ['ethereumjs', 'revm', 'chaind'];

/**
 * The engine of that name. The chaind engine patches every interpreter of the process when loaded, so
 * a process that runs both runs the stock engine's cases first.
 */
export async function loadEngine(name: EngineName): Promise<Engine> {
  if (name === 'ethereumjs') return (await import('./engine.ts')).stockEngine;
  if (name === 'chaind') return (await import('./chaind-engine.ts')).chaindEngine;
  if (name === 'revm') return (await import('./revm-engine.ts')).revmEngine;
  throw new Error(`unknown engine ${String(name)}: one of ${ENGINES.join(', ')}`);
}

export type Verdict =
  | { case: StateCase; status: 'passed'; result: EngineResult }
  | { case: StateCase; status: 'failed'; reason: string; result?: EngineResult }
  | { case: StateCase; status: 'excluded'; reason: string };

export function judge(c: StateCase, r: EngineResult): string | undefined {
  const exception = c.expect.exception;
  if (exception !== undefined && r.rejected === undefined)
    return `expected the tx to be rejected (${exception}); it ran, gas used ${r.gasUsed}`;
  if (exception === undefined && r.rejected !== undefined) return `the tx was rejected: ${r.rejected}`;
  if (r.stateRoot !== c.expect.stateRoot)
    return (
      `state root ${r.stateRoot}, expected ${c.expect.stateRoot}` +
      (r.rejected ? ` (rejected: ${r.rejected})` : '')
    );
  if (exception === undefined && r.logsHash !== c.expect.logsHash)
    return `logs hash ${r.logsHash}, expected ${c.expect.logsHash}`;
  return undefined;
}

/** `scope`: whether the case is part of the fixed CI sample, and whether slow cases run. */
export async function runCase(engine: Engine, c: StateCase, scope: ExclusionScope = {}): Promise<Verdict> {
  const excluded = exclusionOf(c, engine.name, scope);
  if (excluded !== undefined) return { case: c, status: 'excluded', reason: excluded };
  let result: EngineResult;
  try {
    result = await engine.run(c);
  } catch (e) {
    return {
      case: c,
      status: 'failed',
      reason: `engine threw: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  const reason = judge(c, result);
  return reason === undefined
    ? { case: c, status: 'passed', result }
    : { case: c, status: 'failed', reason, result };
}

/** The fork of chaind's own rules, under which the engines are compared with each other. */
export const CHAIN_FORK = 'Prague';

/** The case as it runs under chaind's fork (its pre-state, env and transaction unchanged). */
export function underChainRules(c: StateCase): StateCase {
  return { ...c, fork: CHAIN_FORK, id: c.id.replace(`:${c.fork}:`, `:${CHAIN_FORK}:`) };
}

/**
 * Runs `c` under chaind's fork on `engine`: its result, or why it was not run (an exclusion) or
 * could not be (the engine threw).
 */
export async function runUnderChainRules(
  engine: Engine,
  c: StateCase,
  scope: ExclusionScope = {},
): Promise<EngineResult | { excluded: string } | { threw: string }> {
  const excluded = exclusionOf(c, engine.name, scope);
  if (excluded !== undefined) return { excluded };
  try {
    return await engine.run(underChainRules(c));
  } catch (e) {
    return { threw: e instanceof Error ? e.message : String(e) };
  }
}

/** How two engines' results of one case differ (undefined: they agree on root, logs, gas and rejection). */
export function difference(reference: EngineResult, other: EngineResult): string | undefined {
  if ((reference.rejected === undefined) !== (other.rejected === undefined))
    return `rejected: ${reference.rejected ?? 'no'} vs ${other.rejected ?? 'no'}`;
  if (reference.stateRoot !== other.stateRoot)
    return `state root ${reference.stateRoot} vs ${other.stateRoot}`;
  if (reference.logsHash !== other.logsHash) return `logs hash ${reference.logsHash} vs ${other.logsHash}`;
  if (reference.gasUsed !== other.gasUsed) return `gas used ${reference.gasUsed} vs ${other.gasUsed}`;
  return undefined;
}

/**
 * A fixed sample: from every folder, the `perDir` cases whose id hashes lowest (a pick that does not
 * depend on the order of the files or on what else the corpus holds).
 */
export function sample(cases: readonly StateCase[], perDir: number): StateCase[] {
  const byDir = new Map<string, { key: string; c: StateCase }[]>();
  for (const c of cases) {
    const key = createHash('sha256').update(c.id).digest('hex');
    let list = byDir.get(c.dir);
    if (list === undefined) byDir.set(c.dir, (list = []));
    list.push({ key, c });
  }
  const out: StateCase[] = [];
  for (const dir of [...byDir.keys()].sort()) {
    const list = byDir.get(dir)!.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    out.push(...list.slice(0, perDir).map((e) => e.c));
  }
  return out;
}
