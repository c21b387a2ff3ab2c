/**
 * The GeneralStateTests of ethereum/tests, read from the folder `ETHEREUM_TESTS` names (the test data
 * is public and large, so it is never part of the repository). A state test gives a pre-state, a
 * block env, a transaction matrix (data × gas × value) and, per fork, the expected post-state root and
 * logs hash of some of the matrix's combinations: each such entry is one case here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const ETHEREUM_TESTS_HOWTO =
  'ETHEREUM_TESTS is unset: clone https://github.com/ethereum/tests and set ETHEREUM_TESTS to its folder ' +
  '(the one holding GeneralStateTests/) to run the Ethereum state tests';

/** The folder holding `GeneralStateTests/`, or undefined when the environment does not name one. */
export function ethereumTestsDir(): string | undefined {
  const dir = process.env.ETHEREUM_TESTS;
  return dir === undefined || dir === '' ? undefined : dir;
}

export type Hex = string;

export interface PreAccount {
  balance: Hex;
  nonce: Hex;
  code: Hex;
  storage: Record<Hex, Hex>;
}

export interface Env {
  currentCoinbase: Hex;
  currentNumber: Hex;
  currentTimestamp: Hex;
  currentGasLimit: Hex;
  currentDifficulty: Hex;
  currentBaseFee?: Hex;
  currentRandom?: Hex;
  currentExcessBlobGas?: Hex;
}

/** The matrix's transaction, as the file gives it. */
interface TxMatrix {
  data: Hex[];
  gasLimit: Hex[];
  value: Hex[];
  accessLists?: (AccessListJson | null)[];
  nonce: Hex;
  /** Empty for a contract creation. */
  to: Hex;
  secretKey: Hex;
  sender?: Hex;
  gasPrice?: Hex;
  maxFeePerGas?: Hex;
  maxPriorityFeePerGas?: Hex;
  maxFeePerBlobGas?: Hex;
  blobVersionedHashes?: Hex[];
}

export type AccessListJson = { address: Hex; storageKeys: Hex[] }[];

/** One transaction of the matrix: its data, gas and value picked, and the access list of its data. */
export type CaseTx = Omit<TxMatrix, 'data' | 'gasLimit' | 'value' | 'accessLists'> & {
  data: Hex;
  gasLimit: Hex;
  value: Hex;
  /** Present for a 2930-style (or later) transaction: the access list of this data index. */
  accessList?: AccessListJson;
};

interface PostEntry {
  hash: Hex;
  logs: Hex;
  indexes: { data: number; gas: number; value: number };
  expectException?: string;
}

interface StateTestJson {
  env: Env;
  pre: Record<Hex, PreAccount>;
  transaction: TxMatrix;
  post: Record<string, PostEntry[]>;
}

export interface StateCase {
  /** `file:test:fork:dDgGvV`, unique in the corpus. */
  id: string;
  /** The JSON file, relative to GeneralStateTests/ (with `/`). */
  file: string;
  /** The folder of the file, relative to GeneralStateTests/. */
  dir: string;
  test: string;
  fork: string;
  indexes: { data: number; gas: number; value: number };
  env: Env;
  pre: Record<Hex, PreAccount>;
  tx: CaseTx;
  expect: { stateRoot: Hex; logsHash: Hex; exception?: string };
}

/** Every JSON file of GeneralStateTests/, relative to it, sorted (so every run walks the same order). */
export function listFiles(testsDir: string): string[] {
  const root = join(testsDir, 'GeneralStateTests');
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.json')) out.push(relative(root, p).split(sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** The cases of one file for the given forks (every fork when `forks` is undefined). */
export function loadCases(testsDir: string, file: string, forks?: readonly string[]): StateCase[] {
  const json = JSON.parse(readFileSync(join(testsDir, 'GeneralStateTests', file), 'utf8')) as Record<
    string,
    StateTestJson
  >;
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
  const out: StateCase[] = [];
  for (const [test, t] of Object.entries(json)) {
    for (const [fork, entries] of Object.entries(t.post)) {
      if (forks !== undefined && !forks.includes(fork)) continue;
      for (const e of entries) {
        const { data, gas, value } = e.indexes;
        out.push({
          id: `${file}:${test}:${fork}:d${data}g${gas}v${value}`,
          file,
          dir,
          test,
          fork,
          indexes: e.indexes,
          env: t.env,
          pre: t.pre,
          tx: pickTx(t.transaction, e.indexes),
          expect: { stateRoot: e.hash, logsHash: e.logs, exception: e.expectException },
        });
      }
    }
  }
  return out;
}

function pickTx(m: TxMatrix, ix: PostEntry['indexes']): CaseTx {
  const { data: _d, gasLimit: _g, value: _v, accessLists, ...rest } = m;
  const tx: CaseTx = {
    ...rest,
    data: m.data[ix.data],
    gasLimit: m.gasLimit[ix.gas],
    value: m.value[ix.value],
  };
  // a null entry still makes the tx a typed one with an empty list (the matrix is of one tx type)
  if (accessLists !== undefined) tx.accessList = accessLists[ix.data] ?? [];
  return tx;
}

/** The forks the post sections of a file name, with their case counts. */
export function forkCounts(testsDir: string, file: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of loadCases(testsDir, file)) counts.set(c.fork, (counts.get(c.fork) ?? 0) + 1);
  return counts;
}
