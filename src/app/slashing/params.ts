/**
 * Slashing's params, in the SDK's genesis JSON shape (`app_state.slashing.params`), kept in the params
 * store as canonical JSON; and the evidence age limits of the consensus params, which equivocation
 * needs and genesis.json's `consensus_params.evidence` gives.
 */
import { fromUtf8, utf8 } from '../../primitives/bytes.ts';
import type { StateReader } from '../../state/overlay.ts';
import { DecError, formatDec, parseDec } from '../staking/dec.ts';
import type { StateWriter } from '../state-access.ts';
import { paramsKeys, STORES } from '../store-keys.ts';

export interface SlashingParamsJson {
  signed_blocks_window: string;
  min_signed_per_window: string;
  /** A protobuf JSON Duration: whole seconds, "600s". */
  downtime_jail_duration: string;
  slash_fraction_double_sign: string;
  slash_fraction_downtime: string;
}

/** The SDK's defaults (x/slashing/types/params.go). */
export const DEFAULT_SLASHING_PARAMS: SlashingParamsJson = {
  signed_blocks_window: '100',
  min_signed_per_window: '0.500000000000000000',
  downtime_jail_duration: '600s',
  slash_fraction_double_sign: '0.050000000000000000',
  slash_fraction_downtime: '0.010000000000000000',
};

export interface SlashingParams {
  signedBlocksWindow: number;
  /** LegacyDec, scaled by 10^18. */
  minSignedPerWindow: bigint;
  downtimeJailSeconds: number;
  slashFractionDoubleSign: bigint;
  slashFractionDowntime: bigint;
}

export class SlashingParamsError extends RangeError {}

const MAX_WINDOW = 1_000_000;

/** Checks `json` as the SDK's Params.Validate does; errors name the field. */
export function parseSlashingParams(json: unknown, where = 'slashing params'): SlashingParams {
  if (typeof json !== 'object' || json === null) throw new SlashingParamsError(`${where}: must be an object`);
  const p = json as Record<string, unknown>;
  const fail = (field: string, problem: string): never => {
    throw new SlashingParamsError(`${where}.${field}: ${problem}`);
  };
  const window = String(p.signed_blocks_window);
  if (!/^\d+$/.test(window) || Number(window) < 1 || Number(window) > MAX_WINDOW)
    fail('signed_blocks_window', `must be an integer string from 1 to ${MAX_WINDOW}`);
  const fraction = (field: string): bigint => {
    let d = 0n;
    try {
      d = parseDec(String(p[field]), field);
    } catch (err) {
      if (!(err instanceof DecError)) throw err;
      fail(field, 'must be a decimal string with at most 18 places');
    }
    if (d < 0n || d > parseDec('1')) fail(field, 'must be between 0 and 1');
    return d;
  };
  const minSigned = fraction('min_signed_per_window');
  const doubleSign = fraction('slash_fraction_double_sign');
  const downtime = fraction('slash_fraction_downtime');
  const jail = /^(\d+)s$/.exec(String(p.downtime_jail_duration));
  if (!jail || Number(jail[1]) < 1 || !Number.isSafeInteger(Number(jail[1])))
    fail('downtime_jail_duration', 'must be a positive whole number of seconds, e.g. "600s"');
  return {
    signedBlocksWindow: Number(window),
    minSignedPerWindow: minSigned,
    downtimeJailSeconds: Number(jail![1]),
    slashFractionDoubleSign: doubleSign,
    slashFractionDowntime: downtime,
  };
}

/** The canonical JSON of checked params (decimals with their 18 places). */
export function slashingParamsJson(p: SlashingParams): SlashingParamsJson {
  return {
    signed_blocks_window: String(p.signedBlocksWindow),
    min_signed_per_window: formatDec(p.minSignedPerWindow),
    downtime_jail_duration: `${p.downtimeJailSeconds}s`,
    slash_fraction_double_sign: formatDec(p.slashFractionDoubleSign),
    slash_fraction_downtime: formatDec(p.slashFractionDowntime),
  };
}

export function writeSlashingParams(state: StateWriter, p: SlashingParams): void {
  state.set(STORES.params, paramsKeys.module('slashing'), utf8(JSON.stringify(slashingParamsJson(p))));
}

/** The params in state; the defaults where genesis wrote none. */
export function readSlashingParams(state: StateReader): SlashingParams {
  const raw = state.get(STORES.params, paramsKeys.module('slashing'));
  return parseSlashingParams(raw ? JSON.parse(fromUtf8(raw)) : DEFAULT_SLASHING_PARAMS);
}

/** consensus_params.evidence's age limits: evidence older than both is ignored. */
export interface EvidenceMaxAge {
  numBlocks: number;
  /** Nanoseconds. */
  durationNs: bigint;
}

/** CometBFT's defaults, and what buildGenesis writes. */
export const DEFAULT_EVIDENCE_MAX_AGE: EvidenceMaxAge = {
  numBlocks: 100_000,
  durationNs: 172_800_000_000_000n,
};

const EVIDENCE_KEY = 'evidence';

export function writeEvidenceMaxAge(state: StateWriter, e: EvidenceMaxAge): void {
  state.set(
    STORES.params,
    paramsKeys.module(EVIDENCE_KEY),
    utf8(JSON.stringify({ max_age_num_blocks: String(e.numBlocks), max_age_duration: String(e.durationNs) })),
  );
}

export function readEvidenceMaxAge(state: StateReader): EvidenceMaxAge {
  const raw = state.get(STORES.params, paramsKeys.module(EVIDENCE_KEY));
  if (!raw) return DEFAULT_EVIDENCE_MAX_AGE;
  const j = JSON.parse(fromUtf8(raw)) as { max_age_num_blocks: string; max_age_duration: string };
  return { numBlocks: Number(j.max_age_num_blocks), durationNs: BigInt(j.max_age_duration) };
}
