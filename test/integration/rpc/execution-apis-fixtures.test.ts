/**
 * The execution-apis test fixtures (`tests/<method>/<case>.io`: `>>` requests and the `<<` answers
 * geth gives) for the explorer methods, replayed against an in-process node. Read from the folder
 * checkout $EXECUTION_APIS_TESTS names (its `tests` folder holds them); skipped without it.
 *
 * Only the cases whose answer does not depend on the fixtures' own chain are replayed: the others
 * answer about blocks of `chain.rlp`, a geth chain whose block hashes are keccak-256 of RLP headers,
 * which this chain (CometBFT header hashes) cannot import. A case this node answers differently on
 * purpose is listed in DIFFERENT with the reason; it must still differ, so the list cannot go stale.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rpcNode } from './rpc-helpers.ts';

const ROOT = process.env.EXECUTION_APIS_TESTS ?? '';
const DIR = join(ROOT, 'tests');
const skip =
  ROOT === ''
    ? 'EXECUTION_APIS_TESTS is not set: set it to a checkout of github.com/ethereum/execution-apis (its tests/ holds the fixtures); .ci/run sets it when one is given to CI'
    : false;

/** The cases replayed: each answer is independent of chain.rlp. */
const CASES = [
  'debug_getRawReceipts/get-genesis.io',
  'debug_getRawReceipts/get-invalid-number.io',
  'debug_getRawTransaction/get-invalid-hash.io',
  'debug_getRawBlock/get-invalid-number.io',
  'debug_getRawHeader/get-invalid-number.io',
];

/** Cases answered differently on purpose, and why. */
const DIFFERENT: Record<string, string> = {
  'debug_getRawTransaction/get-invalid-hash.io':
    "the same -32602, worded as every hash and address parameter here is (no geth json wrapper: 'hex string without 0x prefix')",
  'debug_getRawBlock/get-invalid-number.io':
    'not served (-32601 with the reason) before any argument is read: no RLP block matches a CometBFT block hash',
  'debug_getRawHeader/get-invalid-number.io':
    'not served (-32601 with the reason) before any argument is read: no RLP header matches a CometBFT block hash',
};

function exchanges(text: string): { request: unknown; answer: any }[] {
  const out: { request: unknown; answer: any }[] = [];
  let request: unknown;
  for (const line of text.split('\n')) {
    if (line.startsWith('>> ')) request = JSON.parse(line.slice(3));
    else if (line.startsWith('<< ')) out.push({ request, answer: JSON.parse(line.slice(3)) });
  }
  return out;
}

test('execution-apis fixtures of the explorer methods', { skip }, async (t) => {
  assert.ok(existsSync(DIR), `EXECUTION_APIS_TESTS names ${ROOT}, which has no tests folder`);
  const { url } = await rpcNode(t);
  for (const name of CASES) {
    await t.test(name, async () => {
      for (const { request, answer } of exchanges(readFileSync(join(DIR, name), 'utf8'))) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(request),
        });
        const got = await res.json();
        if (DIFFERENT[name]) assert.notDeepEqual(got, answer, `${name} now matches: take it off DIFFERENT`);
        else assert.deepEqual(got, answer);
      }
    });
  }
});
