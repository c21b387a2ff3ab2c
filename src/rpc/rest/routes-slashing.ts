/** The gateway's slashing routes: params and signing infos, as the SDK's REST gateway maps them. */
import {
  QueryParamsRequest,
  QueryParamsResponse,
  QuerySigningInfoRequest,
  QuerySigningInfoResponse,
  QuerySigningInfosRequest,
  QuerySigningInfosResponse,
} from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import type { ValidatorSigningInfo } from 'cosmjs-types/cosmos/slashing/v1beta1/slashing';
import { fromUtf8 } from '../../primitives/bytes.ts';
import { decJson, type Json, pageResponseJson, timestampJson } from './json.ts';
import { pageRequest } from './params.ts';
import type { Route } from './route.ts';
import { queryRoute } from './routes-query.ts';

/** A gogoproto LegacyDec's bytes (the scaled integer's text) as the gateway prints it. */
const decBytesJson = (b: Uint8Array): string => decJson(b.length > 0 ? fromUtf8(b) : '0');

function signingInfoJson(i: ValidatorSigningInfo | undefined): Json {
  if (!i) return null;
  return {
    address: i.address,
    start_height: String(i.startHeight),
    index_offset: String(i.indexOffset),
    jailed_until: timestampJson(i.jailedUntil),
    tombstoned: i.tombstoned,
    missed_blocks_counter: String(i.missedBlocksCounter),
  };
}

export const SLASHING_ROUTES: Route[] = [
  queryRoute(
    '/cosmos/slashing/v1beta1/params',
    '/cosmos.slashing.v1beta1.Query/Params',
    { req: QueryParamsRequest, res: QueryParamsResponse },
    () => ({}),
    ({ params: p }) => ({
      params: {
        signed_blocks_window: String(p.signedBlocksWindow),
        min_signed_per_window: decBytesJson(p.minSignedPerWindow),
        downtime_jail_duration: `${p.downtimeJailDuration.seconds}s`,
        slash_fraction_double_sign: decBytesJson(p.slashFractionDoubleSign),
        slash_fraction_downtime: decBytesJson(p.slashFractionDowntime),
      },
    }),
  ),
  queryRoute(
    '/cosmos/slashing/v1beta1/signing_infos',
    '/cosmos.slashing.v1beta1.Query/SigningInfos',
    { req: QuerySigningInfosRequest, res: QuerySigningInfosResponse },
    (r) => ({ pagination: pageRequest(r.query) }),
    (res) => ({ info: res.info.map(signingInfoJson), pagination: pageResponseJson(res.pagination) }),
  ),
  queryRoute(
    '/cosmos/slashing/v1beta1/signing_infos/{cons_address}',
    '/cosmos.slashing.v1beta1.Query/SigningInfo',
    { req: QuerySigningInfoRequest, res: QuerySigningInfoResponse },
    (r) => ({ consAddress: r.path.cons_address }),
    (res) => ({ val_signing_info: signingInfoJson(res.valSigningInfo) }),
  ),
];
