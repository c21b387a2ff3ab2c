/**
 * The Ethereum GeneralStateTests as an equivalence check of chaind's EVM engines: a fixed sample of
 * the corpus's Cancun cases, drawn from every folder, on stock ethereumjs, on revm as the block
 * executor runs it, and on ethereumjs with the block executor's fast paths. Under Cancun every case
 * must match the test's post-state root and logs hash (or its expected rejection); under Prague,
 * chaind's fork, revm and the patched ethereumjs must match stock ethereumjs's root, logs, gas and
 * rejection; except the named exclusions. The whole corpus: `npm run bench -- state-tests`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ETHEREUM_TESTS_HOWTO,
  ethereumTestsDir,
  listFiles,
  loadCases,
  type StateCase,
} from '../../helpers/state-tests/corpus.ts';
import { exclusionOf } from '../../helpers/state-tests/exclusions.ts';
import { nativeSimulator } from '../../../src/execution/simulation/native-binding.ts';
import type { EngineResult } from '../../helpers/state-tests/engine.ts';
import {
  CHAIN_FORK,
  difference,
  ENGINES,
  loadEngine,
  runCase,
  runUnderChainRules,
  sample,
} from '../../helpers/state-tests/runner.ts';

const PER_DIR = 4;
const dir = ethereumTestsDir();

// before the sample: the stock engine cannot run once the chaind engine is loaded
test(
  'a case whose expected root is wrong fails',
  { skip: dir === undefined ? ETHEREUM_TESTS_HOWTO : false },
  async () => {
    const [c] = loadCases(dir!, 'stExample/add11.json', ['Cancun']);
    const engine = await loadEngine('ethereumjs');
    assert.equal((await runCase(engine, c)).status, 'passed');
    const wrongRoot = { ...c, expect: { ...c.expect, stateRoot: `0x${'00'.repeat(32)}` } };
    const v = await runCase(engine, wrongRoot);
    assert.equal(v.status, 'failed');
    const wrongLogs = { ...c, expect: { ...c.expect, logsHash: `0x${'00'.repeat(32)}` } };
    assert.equal((await runCase(engine, wrongLogs)).status, 'failed');
    const mustReject = {
      ...c,
      expect: { ...c.expect, exception: 'TransactionException.INTRINSIC_GAS_TOO_LOW' },
    };
    assert.equal((await runCase(engine, mustReject)).status, 'failed');
  },
);

test(
  'the state-test sample matches on every engine',
  { skip: dir === undefined ? ETHEREUM_TESTS_HOWTO : false },
  async (t) => {
    const files = listFiles(dir!);
    const all: StateCase[] = files.flatMap((f) => loadCases(dir!, f, ['Cancun']));
    // drawn from the cases the sample runs, so every folder gets PER_DIR of them (engine-wide exclusions only)
    const runnable = all.filter((c) => exclusionOf(c, '', { inSample: true }) === undefined);
    const picked = sample(runnable, PER_DIR);
    const dirs = new Set(files.map((f) => (f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '')));
    const covered = new Set(picked.map((c) => c.dir));
    // every folder holding test files has Cancun cases, so each is represented
    assert.deepEqual(
      [...dirs].filter((d) => !covered.has(d)),
      [],
      'folders the sample misses',
    );
    t.diagnostic(
      `${files.length} files, ${all.length} Cancun cases; ${all.length - runnable.length} excluded; sample of ${picked.length} from ${covered.size} folders`,
    );

    // each engine runs the sample twice: under Cancun against the tests' expected post-states (which
    // proves the harness), and under chaind's own fork, Prague, against the stock engine's results
    // (the fork the chain runs, whose post-states the corpus does not give)
    const failures: string[] = [];
    const reference = new Map<string, EngineResult>();
    for (const name of ENGINES) {
      const native = nativeSimulator();
      if (name === 'revm' && typeof native === 'string') {
        t.diagnostic(`revm: not run, the native EVM is ${native}`);
        continue;
      }
      const engine = await loadEngine(name);
      const counts = { passed: 0, failed: 0, excluded: 0 };
      const prague = { agreed: 0, differed: 0, excluded: 0 };
      const t0 = performance.now();
      for (const c of picked) {
        const v = await runCase(engine, c, { inSample: true });
        counts[v.status]++;
        if (v.status === 'failed') failures.push(`${name} ${c.id}: ${v.reason}`);
        const p = await runUnderChainRules(engine, c, { inSample: true });
        if ('excluded' in p) prague.excluded++;
        else if ('threw' in p) failures.push(`${name} ${c.id} under ${CHAIN_FORK}: engine threw: ${p.threw}`);
        else if (name === 'ethereumjs') reference.set(c.id, p);
        else {
          const ref = reference.get(c.id);
          const d = ref === undefined ? undefined : difference(ref, p);
          if (ref === undefined) prague.excluded++;
          else if (d === undefined) prague.agreed++;
          else {
            prague.differed++;
            failures.push(`${name} ${c.id} under ${CHAIN_FORK}, against ethereumjs: ${d}`);
          }
        }
      }
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      t.diagnostic(
        `${name}: Cancun ${counts.passed} passed, ${counts.failed} failed, ${counts.excluded} excluded; ` +
          (name === 'ethereumjs'
            ? `${CHAIN_FORK} ${reference.size} run as the reference`
            : `${CHAIN_FORK} ${prague.agreed} agree with ethereumjs, ${prague.differed} differ, ${prague.excluded} excluded`) +
          `; ${s} s`,
      );
    }
    assert.deepEqual(failures, []);
  },
);
