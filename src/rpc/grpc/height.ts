/**
 * The `x-cosmos-block-height` metadata header, as the Cosmos SDK's gRPC server reads it: absent or 0
 * selects the latest committed height; heights above it or below what the State Store keeps are
 * refused rather than silently answered from another height. The answer echoes the height read.
 */
import { HEIGHT_HEADER, QueryHeightError, queryHeightOf } from '../codecs/cosmos.ts';
import { invalidArgument } from './errors.ts';
import type { GrpcDeps } from './types.ts';

export { HEIGHT_HEADER };

export function queryHeight(values: (string | Buffer)[], deps: GrpcDeps): number {
  try {
    return queryHeightOf(values.length === 0 ? undefined : String(values[0]), deps.chain.latestHeight(), () =>
      deps.stateEarliestHeight(),
    );
  } catch (err) {
    throw err instanceof QueryHeightError ? invalidArgument(err.message) : err;
  }
}
