/**
 * flatkv's undo records: per version, the previous value of every key the block wrote, kept in the
 * KV store for the undo window, so that rollback can restore older versions and their lattices.
 */
import { decodeEntry, encodeEntry } from '../changelog-codec.ts';
import type { KVPair } from '../types.ts';
import type { LoggedWrite } from './block-log.ts';

export function encodeUndo(version: number, writes: readonly LoggedWrite[]): Uint8Array {
  const undo = writes.map((p) => ({ key: p.key, value: p.prev }));
  return encodeEntry({ version, upgrades: [], changeSets: [{ store: 'evm', pairs: undo }] });
}

/** The writes that restore the version before the record's. */
export function decodeUndo(raw: Uint8Array): KVPair[] {
  return decodeEntry(raw).changeSets[0].pairs;
}
