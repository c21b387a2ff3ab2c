/**
 * A long differential campaign of the two block engines (test/helpers/evm-diff/): generated blocks
 * run on revm and on ethereumjs from identical state, everything compared block by block, app
 * hashes after each commit.
 *
 *   npm run bench -- evm-diff <blocks> [seed]
 *
 * A difference stops the campaign of its seed (the states part there): it is printed on stderr with
 * the seed, height, tx, field and both values, and the run goes on with the next seed until
 * `blocks` blocks ran. Figures: txs, blocks, differences (must be 0), tolerated (known differences
 * met, known-differences.ts, labelled by id), seconds, and each engine's execution time per tx
 * (executeBlock only: no signing, decoding or commits).
 */
import { nativeSimulator } from '../src/execution/simulation/native-binding.ts';
import { runCampaign } from '../test/helpers/evm-diff/campaign.ts';
import { BlockDifference } from '../test/helpers/evm-diff/harness.ts';
import { report } from './report.ts';

const blocks = Number(process.argv[3] ?? 1000);
let seed = Number(process.argv[4] ?? 1);
if (!Number.isInteger(blocks) || blocks < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run bench -- evm-diff <blocks> [seed]');
  process.exit(1);
}
const native = nativeSimulator();
if (typeof native === 'string') {
  console.error(`the native EVM is ${native}: build it with \`npm run build:native-sim\``);
  process.exit(1);
}

const started = performance.now();
let done = 0;
let txs = 0;
/** txs of the campaigns that ran to the end: the ones whose execution time is counted */
let timedTxs = 0;
let differences = 0;
const execMs: Record<string, number> = {};
const tolerated = new Map<string, number>();
const seeds: number[] = [];
while (done < blocks) {
  seeds.push(seed);
  let ran = 0;
  let campaignTxs = 0;
  try {
    const r = await runCampaign({
      native,
      seed,
      blocks: blocks - done,
      onBlock: (s) => {
        ran++;
        txs += s.txs;
        campaignTxs += s.txs;
        if (s.height % 100 === 0)
          console.error(
            `seed ${seed}: block ${s.height}, ${txs} txs, ${((performance.now() - started) / 1000).toFixed(0)} s`,
          );
      },
    });
    for (const [k, v] of Object.entries(r.execMs)) execMs[k] = (execMs[k] ?? 0) + v;
    timedTxs += campaignTxs;
    for (const [id, t] of r.tolerated) {
      tolerated.set(id, (tolerated.get(id) ?? 0) + t.count);
      console.error(`known difference ${id} x${t.count}, first: ${t.first}`);
    }
  } catch (err) {
    if (!(err instanceof BlockDifference)) throw err;
    differences++;
    console.error(`DIFFERENCE (seed ${seed}): ${err.message}`);
  }
  done += Math.max(ran, 1);
  seed++;
}
const seconds = (performance.now() - started) / 1000;
const labels = { seeds: seeds.join(',') };
report('evm-diff', 'txs', txs, 'txs', labels);
report('evm-diff', 'blocks', done, 'blocks', labels);
report('evm-diff', 'differences', differences, 'differences', labels);
for (const [id, n] of tolerated) report('evm-diff', 'tolerated', n, 'txs', { ...labels, id });
report('evm-diff', 'seconds', seconds, 's', labels);
for (const [engine, ms] of Object.entries(execMs))
  report('evm-diff', 'exec_per_tx', (ms * 1000) / timedTxs, 'us', { ...labels, engine });
