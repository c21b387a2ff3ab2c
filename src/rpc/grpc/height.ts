/**
 * The `x-cosmos-block-height` metadata header, as the Cosmos SDK's gRPC server reads it: absent or 0
 * selects the latest committed height; heights above it or below what the State Store keeps are
 * refused rather than silently answered from another height. The answer echoes the height read.
 */
import { invalidArgument } from './errors.ts';
import type { GrpcDeps } from './types.ts';

export const HEIGHT_HEADER = 'x-cosmos-block-height';

export function queryHeight(values: (string | Buffer)[], deps: GrpcDeps): number {
  const latest = deps.chain.latestHeight();
  if (values.length === 0) return latest;
  const v = String(values[0]);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw invalidArgument(
      `invalid height header ${JSON.stringify(HEIGHT_HEADER)}: ${JSON.stringify(v)} is not a non-negative integer`,
    );
  const height = Number(v);
  if (height === 0) return latest;
  if (height > latest)
    throw invalidArgument(
      `cannot query with height in the future; please provide a valid height: height ${height} is above the latest height ${latest}`,
    );
  const earliest = deps.stateEarliestHeight();
  if (height < earliest)
    throw invalidArgument(
      `failed to load state at height ${height}; version does not exist (earliest height: ${earliest})`,
    );
  return height;
}
