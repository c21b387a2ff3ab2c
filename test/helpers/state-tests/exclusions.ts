/**
 * Cases that are not run, each with its reason. A test is named by its file (relative to
 * GeneralStateTests/) and optionally its test name; `engines` limits an exclusion to some engines.
 */
import type { StateCase } from './corpus.ts';

export interface Exclusion {
  file: string;
  test?: string;
  engines?: readonly string[];
  /**
   * Excluded for its running time only: left out of the fixed CI sample and of the bench unless it
   * is asked for them (`STATE_TESTS_SLOW=1`).
   */
  slow?: boolean;
  reason: string;
}

const TOO_SLOW =
  'too slow for a JS interpreter on the CI sample and the default bench: 15 s to minutes per file';

/**
 * Files that take 15 s to minutes on ethereumjs (2-core machine, shared with other work): the
 * ~50,000-call loops and the maximal loops; ethereumjs's own runner skips the same ones as slow.
 */
const SLOW_FILES = [
  'VMTests/vmPerformance/loopExp.json',
  'VMTests/vmPerformance/loopMul.json',
  'stQuadraticComplexityTest/Call50000.json',
  'stQuadraticComplexityTest/Call50000_sha256.json',
  'stQuadraticComplexityTest/Callcode50000.json',
  'stQuadraticComplexityTest/QuadraticComplexitySolidity_CallDataCopy.json',
  'stQuadraticComplexityTest/Return50000.json',
  'stQuadraticComplexityTest/Return50000_2.json',
  'stTimeConsuming/CALLBlake2f_MaxRounds.json',
  'stTimeConsuming/static_Call50000_sha256.json',
  'stStaticCall/static_Call50000.json',
  'stStaticCall/static_Call50000_ecrec.json',
  'stStaticCall/static_Call50000_identity.json',
  'stStaticCall/static_Call50000_identity2.json',
  'stStaticCall/static_Call50000_rip160.json',
  'stStaticCall/static_Call50000bytesContract50_1.json',
  'stStaticCall/static_Call50000bytesContract50_2.json',
  'stStaticCall/static_Call50000bytesContract50_3.json',
  'stStaticCall/static_Return50000_2.json',
];

/** Files of several seconds per case: run by the bench, left out of the CI sample. */
const SAMPLE_SLOW_FILES = [
  'stAttackTest/ContractCreationSpam.json',
  'stCallCreateCallCodeTest/Call1024PreCalls.json',
  'stDelegatecallTestHomestead/Call1024PreCalls.json',
  'stQuadraticComplexityTest/Call50000_ecrec.json',
  'stQuadraticComplexityTest/Call50000_identity.json',
  'stQuadraticComplexityTest/Call50000_identity2.json',
  'stQuadraticComplexityTest/Call50000_rip160.json',
  'stQuadraticComplexityTest/Create1000Shnghai.json',
];

export const EXCLUSIONS: readonly Exclusion[] = SLOW_FILES.map((file) => ({
  file,
  slow: true,
  reason: TOO_SLOW,
}));

const SAMPLE_EXCLUSIONS: readonly Exclusion[] = [
  ...EXCLUSIONS,
  ...SAMPLE_SLOW_FILES.map((file) => ({
    file,
    slow: true,
    reason: 'several seconds per case: too slow for the CI sample',
  })),
];

export interface ExclusionScope {
  /** The case is part of the fixed CI sample. */
  inSample?: boolean;
  /** Run the slow cases too. */
  slow?: boolean;
}

/** Why revm runs no type-3 transaction: chaind's blocks carry none, and its native ABI has no blob fields. */
export const BLOB_TX_ON_REVM =
  'a blob (type-3) transaction: chaind accepts none, so the native engine is given no blob fields';

/**
 * Cases whose creation collides, under EIP-7610, with an address that holds storage but no code or
 * nonce: the test's Merkle state shows the storage through the account's storage root. chaind's
 * state has no storage roots, so neither of its engines consults storage in that check (a collision
 * is a nonce or code there, on both), and its own state cannot hold such an account (EIP-6780 removes
 * a contract's slots with it). revm, reading no storage for the check, gives another root on these.
 */
export const STORAGE_COLLISION_ON_REVM =
  'an EIP-7610 storage collision (storage at an address without code or nonce): chaind has no storage roots, so its engines do not consult storage there';

const STORAGE_COLLISION_FILES = [
  'stCreate2/create2collisionStorageParis.json',
  'stCreate2/RevertInCreateInInitCreate2Paris.json',
  'stExtCodeHash/dynamicAccountOverwriteEmpty_Paris.json',
  'stRevertTest/RevertInCreateInInit_Paris.json',
  'stSStoreTest/InitCollisionParis.json',
];

export function exclusionOf(c: StateCase, engine: string, scope: ExclusionScope = {}): string | undefined {
  if (engine === 'revm' && c.tx.blobVersionedHashes !== undefined) return BLOB_TX_ON_REVM;
  if (engine === 'revm' && STORAGE_COLLISION_FILES.includes(c.file)) return STORAGE_COLLISION_ON_REVM;
  for (const e of scope.inSample === true ? SAMPLE_EXCLUSIONS : EXCLUSIONS) {
    if (e.file !== c.file) continue;
    if (e.test !== undefined && e.test !== c.test) continue;
    if (e.engines !== undefined && !e.engines.includes(engine)) continue;
    if (e.slow === true && scope.slow === true) continue;
    return e.reason;
  }
  return undefined;
}
