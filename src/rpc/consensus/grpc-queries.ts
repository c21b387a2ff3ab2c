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
import {
  QueryValidatorRequest,
  QueryValidatorResponse,
  QueryValidatorsRequest,
  QueryValidatorsResponse,
} from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { BondStatus, bondStatusFromJSON } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { AuthReader } from '../../app/auth.ts';
import { BankReader, listBalances } from '../../app/bank.ts';
import { listValidators, StakingReader } from '../../app/staking/reader.ts';
import { BECH32_ACCOUNT_PREFIX, BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import { slashingQueries } from './slashing-queries.ts';
import {
  address,
  decode,
  invalidArgument,
  notFound,
  paginate,
  type QueryHandler,
  rangesAt,
  validatorProto,
} from './query-common.ts';
import { STAKING_QUERIES } from './staking-queries.ts';

export { decToProto, QueryError, type QueryHandler, rangesAt } from './query-common.ts';

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
      const validator = await state.read(height, (s) =>
        new StakingReader(s).validatorByBech32(req.validatorAddr),
      );
      if (!validator) throw notFound(`validator ${req.validatorAddr} not found`);
      return QueryValidatorResponse.encode({ validator: validatorProto(validator) }).finish();
    },
    ...STAKING_QUERIES,
  } satisfies Record<string, QueryHandler>),
]);
