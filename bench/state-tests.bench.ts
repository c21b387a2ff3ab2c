/**
 * The Ethereum GeneralStateTests (ethereum/tests, at the folder `ETHEREUM_TESTS` names) on chaind's
 * EVM engines: every Cancun case of the corpus, or those whose id contains `filter`.
 *
 *   npm run bench -- state-tests [engine=all|ethereumjs|revm|chaind] [filter]
 *
 * Figures (per engine):
 *   cases      cases run (Cancun post entries, excluded ones not counted)
 *   passed     cases whose post-state root and logs hash (or rejection) match the test
 *   failed     cases that do not (listed on stderr and in the failures file)
 *   excluded   cases not run (exclusions.ts, each with its reason)
 *   seconds    wall time of the engine's run
 * and, once, `corpus_cases` per fork (labelled `fork`), the post entries the corpus holds.
 * The failures and the slowest cases go to stderr and to `$TMPDIR/state-tests-<engine>.txt`.
 * STATE_TESTS_FROM=<file> starts at that file (relative to GeneralStateTests/, in sorted order).
 * The slow files (exclusions.ts) run only with STATE_TESTS_SLOW=1 (minutes per case on ethereumjs).
 * The stock engine runs before the chaind engine (whose patches are process-wide).
 *
 * STATE_TESTS_FORK=Prague runs the same cases under Prague, chaind's fork, for which the corpus has no
 * expected post-states: stock ethereumjs runs first as the reference, and every other engine's root,
 * logs hash, gas used and rejection must equal it (figures `agreed`, `differed`, `excluded`).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ETHEREUM_TESTS_HOWTO,
  ethereumTestsDir,
  listFiles,
  loadCases,
} from '../test/helpers/state-tests/corpus.ts';
import type { EngineResult } from '../test/helpers/state-tests/engine.ts';
import {
  CHAIN_FORK,
  difference,
  ENGINES,
  type EngineName,
  loadEngine,
  runCase,
  runUnderChainRules,
} from '../test/helpers/state-tests/runner.ts';
import { report } from './report.ts';

const FORK = 'Cancun';
const dir = ethereumTestsDir();
if (dir === undefined) {
  console.error(ETHEREUM_TESTS_HOWTO);
  process.exit(1);
}
const engineArg = process.argv[3] ?? 'all';
const filter = process.argv[4] ?? '';
const runSlow = process.env.STATE_TESTS_SLOW === '1';
const engines: EngineName[] = engineArg === 'all' ? [...ENGINES] : [engineArg as EngineName];
for (const e of engines)
  if (!ENGINES.includes(e)) {
    console.error(`engine ${e}: one of all, ${ENGINES.join(', ')}`);
    process.exit(1);
  }

// STATE_TESTS_FROM=<file>: start at that file (sorted order), to resume a run
const from = process.env.STATE_TESTS_FROM ?? '';
const files = listFiles(dir).filter((f) => f >= from);
const forks = new Map<string, number>();
let selected = 0;
for (const file of files)
  for (const c of loadCases(dir, file)) {
    forks.set(c.fork, (forks.get(c.fork) ?? 0) + 1);
    if (c.fork === FORK && c.id.includes(filter)) selected++;
  }
for (const [fork, n] of [...forks].sort((a, b) => b[1] - a[1]))
  report('state-tests', 'corpus_cases', n, 'cases', { fork });

const reference = new Map<string, EngineResult>();
if (process.env.STATE_TESTS_FORK === CHAIN_FORK) {
  if (engines[0] !== 'ethereumjs') engines.unshift('ethereumjs');
  for (const name of engines) await compareUnderChainRules(name);
  process.exit(0);
}

/** Every selected case under chaind's fork on `name`, against the stock engine's results. */
async function compareUnderChainRules(name: EngineName): Promise<void> {
  const engine = await loadEngine(name);
  const counts = { agreed: 0, differed: 0, excluded: 0 };
  const lines: string[] = [];
  const t0 = performance.now();
  let done = 0;
  for (const file of files)
    for (const c of loadCases(dir!, file, [FORK]).filter((c) => c.id.includes(filter))) {
      const r = await runUnderChainRules(engine, c, { slow: runSlow });
      const ref = reference.get(c.id);
      let d: string | undefined;
      if ('excluded' in r) counts.excluded++;
      else if ('threw' in r) d = `engine threw: ${r.threw}`;
      else if (name === 'ethereumjs') reference.set(c.id, r);
      else if (ref === undefined) counts.excluded++;
      else d = difference(ref, r);
      if (d !== undefined) {
        counts.differed++;
        const line = `DIFF ${name} ${c.id} under ${CHAIN_FORK}: ${d}`;
        lines.push(line);
        console.error(line);
      } else if (!('excluded' in r) && (name === 'ethereumjs' || ref !== undefined)) counts.agreed++;
      if (++done % 500 === 0)
        console.error(
          `${name} (${CHAIN_FORK}): ${done}/${selected} cases, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
        );
    }
  const out = join(tmpdir(), `state-tests-${name}-${CHAIN_FORK}.txt`);
  writeFileSync(out, lines.join('\n') + '\n');
  const labels = {
    engine: name,
    fork: CHAIN_FORK,
    against: 'ethereumjs',
    filter,
    slow: runSlow,
    failures: out,
  };
  for (const [figure, n] of Object.entries(counts)) report('state-tests', figure, n, 'cases', labels);
  report('state-tests', 'seconds', (performance.now() - t0) / 1000, 's', labels);
}

for (const name of engines) {
  const engine = await loadEngine(name);
  let passed = 0;
  let failed = 0;
  let excluded = 0;
  const lines: string[] = [];
  const times: { id: string; ms: number }[] = [];
  const t0 = performance.now();
  let done = 0;
  for (const file of files) {
    const cases = loadCases(dir, file, [FORK]).filter((c) => c.id.includes(filter));
    for (const c of cases) {
      const s = performance.now();
      const v = await runCase(engine, c, { slow: runSlow });
      const ms = performance.now() - s;
      times.push({ id: c.id, ms });
      if (v.status === 'passed') passed++;
      else if (v.status === 'excluded') excluded++;
      else {
        failed++;
        const line = `FAIL ${name} ${c.id}: ${v.reason}`;
        lines.push(line);
        console.error(line);
      }
      if (++done % 500 === 0)
        console.error(
          `${name}: ${done}/${selected} cases, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
        );
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  times.sort((a, b) => b.ms - a.ms);
  const slowest = times.slice(0, 15).map((s) => `SLOW ${name} ${s.id}: ${s.ms.toFixed(0)} ms`);
  for (const l of slowest) console.error(l);
  const out = join(tmpdir(), `state-tests-${name}.txt`);
  writeFileSync(out, [...lines, ...slowest].join('\n') + '\n');
  const labels = { engine: name, fork: FORK, filter, slow: runSlow, failures: out };
  report('state-tests', 'cases', passed + failed, 'cases', labels);
  report('state-tests', 'passed', passed, 'cases', labels);
  report('state-tests', 'failed', failed, 'cases', labels);
  report('state-tests', 'excluded', excluded, 'cases', labels);
  report('state-tests', 'seconds', seconds, 's', labels);
}
