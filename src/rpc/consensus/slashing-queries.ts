/**
 * cosmos.slashing.v1beta1.Query: Params, SigningInfo, SigningInfos, read at the query height.
 */
import {
  QueryParamsRequest,
  QueryParamsResponse,
  QuerySigningInfoRequest,
  QuerySigningInfoResponse,
  QuerySigningInfosRequest,
  QuerySigningInfosResponse,
} from 'cosmjs-types/cosmos/slashing/v1beta1/query';
import type { ValidatorSigningInfo } from 'cosmjs-types/cosmos/slashing/v1beta1/slashing';
import { readSlashingParams } from '../../app/slashing/params.ts';
import {
  BECH32_VALCONS_PREFIX,
  indexOffset,
  listSigningInfos,
  type SigningInfo,
  SigningInfoReader,
  consAddressBech32,
} from '../../app/slashing/signing-info.ts';
import { utf8 } from '../../primitives/bytes.ts';
import {
  address,
  decode,
  invalidArgument,
  notFound,
  paginate,
  type QueryHandler,
  rangesAt,
} from './query-common.ts';

/** A LegacyDec as gogoproto marshals it: the scaled integer's decimal text. */
const decBytes = (scaled: bigint) => utf8(scaled.toString());

function signingInfoProto(info: SigningInfo, height: number): ValidatorSigningInfo {
  return {
    address: consAddressBech32(info.consAddress),
    startHeight: BigInt(info.startHeight),
    indexOffset: BigInt(indexOffset(info, height)),
    jailedUntil: { seconds: BigInt(info.jailedUntil.seconds), nanos: info.jailedUntil.nanos },
    tombstoned: info.tombstoned,
    missedBlocksCounter: BigInt(info.missedBlocksCounter),
  };
}

export function slashingQueries(): [string, QueryHandler][] {
  return [
    [
      '/cosmos.slashing.v1beta1.Query/Params',
      async (bytes, state, height) => {
        decode(QueryParamsRequest, bytes);
        const p = await state.read(height, (s) => readSlashingParams(s));
        return QueryParamsResponse.encode({
          params: {
            signedBlocksWindow: BigInt(p.signedBlocksWindow),
            minSignedPerWindow: decBytes(p.minSignedPerWindow),
            downtimeJailDuration: { seconds: BigInt(p.downtimeJailSeconds), nanos: 0 },
            slashFractionDoubleSign: decBytes(p.slashFractionDoubleSign),
            slashFractionDowntime: decBytes(p.slashFractionDowntime),
          },
        }).finish();
      },
    ],
    [
      '/cosmos.slashing.v1beta1.Query/SigningInfo',
      async (bytes, state, height) => {
        const req = decode(QuerySigningInfoRequest, bytes);
        if (req.consAddress === '') throw invalidArgument('invalid request: cons_address is empty');
        const consAddress = address(req.consAddress, BECH32_VALCONS_PREFIX);
        const info = await state.read(height, (s) => new SigningInfoReader(s).get(consAddress));
        if (!info) throw notFound(`SigningInfo not found for validator ${req.consAddress}`);
        return QuerySigningInfoResponse.encode({ valSigningInfo: signingInfoProto(info, height) }).finish();
      },
    ],
    [
      '/cosmos.slashing.v1beta1.Query/SigningInfos',
      async (bytes, state, height) => {
        const req = decode(QuerySigningInfosRequest, bytes);
        const all = await listSigningInfos(rangesAt(state, height));
        const { items, pagination } = paginate(all, req.pagination);
        return QuerySigningInfosResponse.encode({
          info: items.map((e) => signingInfoProto(e.info, height)),
          pagination,
        }).finish();
      },
    ],
  ];
}
