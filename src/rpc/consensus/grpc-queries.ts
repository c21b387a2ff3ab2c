/**
 * The gRPC query services `/abci_query` answers (the Cosmos SDK routes a gRPC method path through
 * ABCI query the same way), so CosmJS's QueryClient works against the consensus RPC unchanged.
 * Requests and responses are the `cosmjs-types` protobufs; state is read at the query height through
 * StateView by the app modules' readers (listings too: app/ owns every key layout).
 */
import { QueryAccountRequest, QueryAccountResponse } from 'cosmjs-types/cosmos/auth/v1beta1/query';
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
} from 'cosmjs-types/cosmos/bank/v1beta1/query';
import type { PageRequest, PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import {
  QueryValidatorRequest,
  QueryValidatorResponse,
  QueryValidatorsRequest,
  QueryValidatorsResponse,
} from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { BondStatus, bondStatusFromJSON, Validator } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { Any } from 'cosmjs-types/google/protobuf/any';
import type { StakingValidator } from '../../app/genesis.ts';
import { AuthReader } from '../../app/auth.ts';
import { BankReader, listBalances } from '../../app/bank.ts';
import type { StateRanges } from '../../app/state-access.ts';
import { listValidators, StakingReader } from '../../app/staking.ts';
import { fromBech32 } from '../../crypto/accounts.ts';
import { compareBytes } from '../../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import { slashingQueries } from './slashing-queries.ts';
import type { StateView } from './types.ts';

/** A failed query, as the Cosmos SDK reports gRPC errors through ABCI (codespace "sdk"). */
export class QueryError extends Error {
  readonly abciCode: number;
  constructor(abciCode: number, log: string) {
    super(log);
    this.abciCode = abciCode;
  }
}

/** gRPC InvalidArgument → sdk ErrInvalidRequest (18), worded as the SDK's gRPC bridge words it. */
export const invalidArgument = (desc: string) =>
  new QueryError(18, `rpc error: code = InvalidArgument desc = ${desc}: invalid request`);
/** gRPC NotFound → sdk ErrKeyNotFound (22); CosmJS's getAccount maps exactly this to null. */
export const notFound = (desc: string) =>
  new QueryError(22, `rpc error: code = NotFound desc = ${desc}: key not found`);

export type QueryHandler = (request: Uint8Array, state: StateView, height: number) => Promise<Uint8Array>;

export function decode<T>(codec: { decode(b: Uint8Array): T }, bytes: Uint8Array): T {
  try {
    return codec.decode(bytes);
  } catch (err) {
    throw invalidArgument(`failed to decode request: ${(err as Error).message}`);
  }
}

export function address(bech32: string, prefix: string): Uint8Array {
  if (bech32 === '') throw invalidArgument('empty address string is not allowed');
  try {
    return fromBech32(bech32, prefix);
  } catch (err) {
    throw invalidArgument(`invalid address ${JSON.stringify(bech32)}: ${(err as Error).message}`);
  }
}

/** The Cosmos SDK's key pagination over an ordered list: key or offset, limit (default 100), reverse, count_total. */
export function paginate<T extends { key: Uint8Array }>(
  all: T[],
  page: PageRequest | undefined,
): { items: T[]; pagination: PageResponse } {
  const list = page?.reverse ? [...all].reverse() : all;
  const limit = page && page.limit > 0n ? Number(page.limit) : 100;
  if (page && page.key.length > 0 && page.offset > 0n)
    throw invalidArgument('either offset or key is expected, got both');
  let start = page ? Number(page.offset) : 0;
  if (page && page.key.length > 0) {
    start = list.findIndex((x) =>
      page.reverse ? compareBytes(x.key, page.key) <= 0 : compareBytes(x.key, page.key) >= 0,
    );
    if (start < 0) start = list.length;
  }
  const items = list.slice(start, start + limit);
  const next = list[start + limit];
  const countTotal = !page || page.countTotal || (page.key.length === 0 && page.offset === 0n);
  return {
    items,
    pagination: {
      nextKey: next ? next.key : new Uint8Array(0),
      total: countTotal ? BigInt(list.length) : 0n,
    },
  };
}

/** The State Store's listings at `height`, for the modules' listing readers. */
export function rangesAt(state: StateView, height: number): StateRanges {
  return { range: (store, start, end) => state.range(store, start, end, height) };
}

/** LegacyDec text ("0.100000000000000000") → its protobuf form: the integer scaled by 10^18. */
export function decToProto(dec: string): string {
  const m = /^(\d+)(?:\.(\d{0,18}))?$/.exec(dec);
  if (!m) throw new Error(`invalid decimal ${JSON.stringify(dec)}`);
  return (BigInt(m[1]) * 10n ** 18n + BigInt((m[2] ?? '').padEnd(18, '0'))).toString();
}

function timestamp(rfc3339: string) {
  const ms = Date.parse(rfc3339);
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

export function validatorProto(v: StakingValidator): Validator {
  return Validator.fromPartial({
    operatorAddress: v.operator_address,
    consensusPubkey: Any.fromPartial({
      typeUrl: v.consensus_pubkey['@type'],
      value: Ed25519PubKey.encode({ key: Buffer.from(v.consensus_pubkey.key, 'base64') }).finish(),
    }),
    jailed: v.jailed,
    status: bondStatusFromJSON(v.status),
    tokens: v.tokens,
    delegatorShares: decToProto(v.delegator_shares),
    description: {
      moniker: v.description.moniker,
      identity: v.description.identity,
      website: v.description.website,
      securityContact: v.description.security_contact,
      details: v.description.details,
    },
    unbondingHeight: 0n,
    unbondingTime: { seconds: -62135596800n, nanos: 0 },
    commission: {
      commissionRates: {
        rate: decToProto(v.commission.commission_rates.rate),
        maxRate: decToProto(v.commission.commission_rates.max_rate),
        maxChangeRate: decToProto(v.commission.commission_rates.max_change_rate),
      },
      updateTime: timestamp(v.commission.update_time),
    },
    minSelfDelegation: v.min_self_delegation,
  });
}

/** By gRPC method path. A Map, so a path like `constructor` finds nothing rather than a prototype member. */
export const GRPC_QUERIES: ReadonlyMap<string, QueryHandler> = new Map([
  ...slashingQueries(),
  ...Object.entries({
    '/cosmos.bank.v1beta1.Query/Balance': async (bytes, state, height) => {
      const req = decode(QueryBalanceRequest, bytes);
      const addr = address(req.address, BECH32_ACCOUNT_PREFIX);
      if (req.denom === '') throw invalidArgument('invalid denom');
      const amount = await state.read(height, (s) => new BankReader(s).balance(addr, req.denom));
      return QueryBalanceResponse.encode({
        balance: { denom: req.denom, amount: amount.toString() },
      }).finish();
    },

    '/cosmos.bank.v1beta1.Query/AllBalances': async (bytes, state, height) => {
      const req = decode(QueryAllBalancesRequest, bytes);
      const addr = address(req.address, BECH32_ACCOUNT_PREFIX);
      const entries = await listBalances(rangesAt(state, height), addr);
      const { items, pagination } = paginate(entries, req.pagination);
      return QueryAllBalancesResponse.encode({
        balances: items.map((e) => ({ denom: e.denom, amount: e.amount.toString() })),
        pagination,
      }).finish();
    },

    '/cosmos.auth.v1beta1.Query/Account': async (bytes, state, height) => {
      const req = decode(QueryAccountRequest, bytes);
      const addr = address(req.address, BECH32_ACCOUNT_PREFIX);
      const account = await state.read(height, (s) => new AuthReader(s).accountAny(addr));
      if (!account) throw notFound(`account ${req.address} not found`);
      return QueryAccountResponse.encode({ account }).finish();
    },

    '/cosmos.staking.v1beta1.Query/Validators': async (bytes, state, height) => {
      const req = decode(QueryValidatorsRequest, bytes);
      let status: BondStatus | undefined;
      if (req.status !== '') {
        status = bondStatusFromJSON(req.status);
        if (status === BondStatus.UNRECOGNIZED || status === BondStatus.BOND_STATUS_UNSPECIFIED)
          throw invalidArgument(`invalid validator status ${req.status}`);
      }
      const all = (await listValidators(rangesAt(state, height))).filter(
        (v) => status === undefined || bondStatusFromJSON(v.validator.status) === status,
      );
      const { items, pagination } = paginate(all, req.pagination);
      return QueryValidatorsResponse.encode({
        validators: items.map((v) => validatorProto(v.validator)),
        pagination,
      }).finish();
    },

    '/cosmos.staking.v1beta1.Query/Validator': async (bytes, state, height) => {
      const req = decode(QueryValidatorRequest, bytes);
      // refused as the SDK refuses it; the reader takes the valid address as text
      address(req.validatorAddr, BECH32_VALOPER_PREFIX);
      const validator = await state.read(height, (s) => new StakingReader(s).validator(req.validatorAddr));
      if (!validator) throw notFound(`validator ${req.validatorAddr} not found`);
      return QueryValidatorResponse.encode({ validator: validatorProto(validator) }).finish();
    },
  } satisfies Record<string, QueryHandler>),
]);
