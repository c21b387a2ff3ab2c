/**
 * genesis.json: its shape (CometBFT's top level, the modules' app_state), the builder `init` and
 * `dev` use, and the validation `start` runs before anything is opened.
 */
import { ChainError } from '../util/errors.ts';
import { toAccAddress } from '../crypto/accounts.ts';
import { BASE_DENOM, DEFAULT_EVM_CHAIN_ID } from '../primitives/identity.ts';
import {
  checkGenesisValidators,
  type GenesisDelegation,
  selfDelegation,
} from './staking/genesis-validators.ts';
import { DEFAULT_STAKING_PARAMS, POWER_REDUCTION, type StakingParamsJson } from './staking/params.ts';
import type { ValidatorRecord as StakingValidator } from './staking/records.ts';
import { BONDED_POOL } from './staking/pools.ts';
import {
  DEFAULT_SLASHING_PARAMS,
  parseSlashingParams,
  SlashingParamsError,
  type SlashingParamsJson,
} from './slashing/params.ts';

export type StateCommitment = 'flatkv' | 'iavl';

export interface GenesisValidator {
  address: string;
  pub_key: { type: 'tendermint/PubKeyEd25519'; value: string };
  power: string;
  name: string;
}

export interface Coin {
  denom: string;
  amount: string;
}

export interface EvmParams {
  chain_id: string;
  state_commitment: StateCommitment;
  base_fee: {
    initial_base_fee: string;
    min_base_fee: string;
    base_fee_change_denominator: string;
    elasticity_multiplier: string;
  };
}

export interface Genesis {
  genesis_time: string;
  chain_id: string;
  initial_height: string;
  consensus_params: {
    block: { max_bytes: string; max_gas: string };
    evidence: { max_age_num_blocks: string; max_age_duration: string; max_bytes: string };
    validator: { pub_key_types: string[] };
    version: { app: string };
  };
  validators: GenesisValidator[];
  app_hash: string;
  app_state: {
    auth: { params: { max_memo_characters: string; tx_sig_limit: string }; accounts: { address: string }[] };
    bank: {
      params: { default_send_enabled: boolean };
      balances: { address: string; coins: Coin[] }[];
      supply: Coin[];
      denom_metadata: unknown[];
    };
    staking: {
      /** missing fields get the defaults (staking/params.ts) */
      params: Partial<StakingParamsJson>;
      validators: StakingValidator[];
      /** the genesis validators' self-delegations */
      delegations?: GenesisDelegation[];
    };
    evm: { params: EvmParams; address_associations: { evm_address: string; cosmos_address: string }[] };
    /** Absent: the SDK's default params. */
    slashing?: { params: SlashingParamsJson };
  };
}

export interface GenesisOptions {
  chainId: string;
  evmChainId?: number;
  moniker: string;
  genesisTime?: Date;
  stateCommitment?: StateCommitment;
  validator: GenesisValidatorOptions;
  /** Further bonded validators (a network's other validators), after `validator`. */
  moreValidators?: GenesisValidatorOptions[];
  /** bech32 address -> amount in uchain */
  balances?: { address: string; uchain: bigint }[];
  /** EVM ↔ Cosmos address pairs known at genesis (keys whose public key is known, like dev accounts) */
  associations?: { evm_address: string; cosmos_address: string }[];
  /** consensus_params.block.max_gas; DEFAULT_BLOCK_MAX_GAS unless given */
  blockMaxGas?: bigint;
  /** app_state.slashing.params over the SDK's defaults (tests: a short window and jail time) */
  slashingParams?: Partial<SlashingParamsJson>;
}

/** The block gas limit of a new chain: Ethereum mainnet's long-standing 30M. */
export const DEFAULT_BLOCK_MAX_GAS = 30_000_000n;

export interface GenesisValidatorOptions {
  address: string;
  pubKeyBase64: string;
  operatorAddress: string;
  /** Defaults to the chain's moniker. */
  moniker?: string;
}

export const VALIDATOR_POWER = 10n;
export { POWER_REDUCTION };
export type { StakingValidator };

export function buildGenesis(o: GenesisOptions): Genesis {
  const bonded = (VALIDATOR_POWER * POWER_REDUCTION).toString();
  const validators = [o.validator, ...(o.moreValidators ?? [])];
  // the bonded pool holds what the genesis validators' self-delegations bond
  const funded = [
    ...(o.balances ?? []),
    {
      address: toAccAddress(BONDED_POOL),
      uchain: VALIDATOR_POWER * POWER_REDUCTION * BigInt(validators.length),
    },
  ];
  const balances = funded.map((b) => ({
    address: b.address,
    coins: [{ denom: BASE_DENOM, amount: b.uchain.toString() }],
  }));
  const total = funded.reduce((sum, b) => sum + b.uchain, 0n);
  const stakingValidators: StakingValidator[] = validators.map((v) => ({
    operator_address: v.operatorAddress,
    consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: v.pubKeyBase64 },
    jailed: false,
    status: 'BOND_STATUS_BONDED',
    tokens: bonded,
    delegator_shares: `${bonded}.000000000000000000`,
    description: {
      moniker: v.moniker ?? o.moniker,
      identity: '',
      website: '',
      security_contact: '',
      details: '',
    },
    commission: {
      commission_rates: {
        rate: '0.100000000000000000',
        max_rate: '0.200000000000000000',
        max_change_rate: '0.010000000000000000',
      },
      update_time: rfc3339Nano(o.genesisTime ?? new Date()),
    },
    min_self_delegation: '1',
    unbonding_height: '0',
    unbonding_time: '1970-01-01T00:00:00Z',
  }));
  return {
    genesis_time: rfc3339Nano(o.genesisTime ?? new Date()),
    chain_id: o.chainId,
    initial_height: '1',
    consensus_params: {
      block: { max_bytes: '22020096', max_gas: (o.blockMaxGas ?? DEFAULT_BLOCK_MAX_GAS).toString() },
      evidence: { max_age_num_blocks: '100000', max_age_duration: '172800000000000', max_bytes: '1048576' },
      validator: { pub_key_types: ['ed25519'] },
      version: { app: '0' },
    },
    validators: validators.map((v) => ({
      address: v.address,
      pub_key: { type: 'tendermint/PubKeyEd25519', value: v.pubKeyBase64 },
      power: VALIDATOR_POWER.toString(),
      name: v.moniker ?? o.moniker,
    })),
    app_hash: '',
    app_state: {
      auth: {
        params: { max_memo_characters: '256', tx_sig_limit: '7' },
        accounts: balances.map((b) => ({ address: b.address })),
      },
      bank: {
        params: { default_send_enabled: true },
        balances,
        supply: total > 0n ? [{ denom: BASE_DENOM, amount: total.toString() }] : [],
        denom_metadata: [
          {
            base: BASE_DENOM,
            display: 'chain',
            denom_units: [
              { denom: BASE_DENOM, exponent: 0 },
              { denom: 'chain', exponent: 6 },
            ],
          },
        ],
      },
      staking: {
        params: { ...DEFAULT_STAKING_PARAMS },
        validators: stakingValidators,
        delegations: stakingValidators.map(selfDelegation),
      },
      evm: {
        params: {
          chain_id: String(o.evmChainId ?? DEFAULT_EVM_CHAIN_ID),
          state_commitment: o.stateCommitment ?? 'flatkv',
          base_fee: {
            initial_base_fee: '1000000000',
            min_base_fee: '1000000000',
            base_fee_change_denominator: '8',
            elasticity_multiplier: '2',
          },
        },
        address_associations: o.associations ?? [],
      },
      slashing: { params: { ...DEFAULT_SLASHING_PARAMS, ...o.slashingParams } },
    },
  };
}

/** RFC 3339 with nanoseconds, as CometBFT writes times. */
export function rfc3339Nano(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

export class GenesisError extends ChainError {
  constructor(message: string) {
    super('GENESIS_INVALID', message);
  }
}

const UINT_RE = /^\d+$/;

/** Parses and checks a genesis document; errors name the file and the field. */
export function parseGenesis(text: string, file = 'genesis.json'): Genesis {
  let g: any;
  try {
    g = JSON.parse(text);
  } catch (err) {
    throw new GenesisError(`${file}: invalid JSON: ${(err as Error).message}`);
  }
  const fail = (field: string, problem: string): never => {
    throw new GenesisError(`${file}: ${field}: ${problem}`);
  };
  if (typeof g !== 'object' || g === null) fail('(root)', 'must be a JSON object');
  if (typeof g.chain_id !== 'string' || !/^[A-Za-z0-9_.-]{1,50}$/.test(g.chain_id)) {
    fail('chain_id', 'must be 1-50 characters of letters, digits, "-", "_" or "."');
  }
  if (typeof g.genesis_time !== 'string' || Number.isNaN(Date.parse(g.genesis_time)))
    fail('genesis_time', 'must be an RFC 3339 time');
  if (typeof g.initial_height !== 'string' || !UINT_RE.test(g.initial_height) || g.initial_height === '0') {
    fail('initial_height', 'must be a positive integer string');
  }
  const block = g.consensus_params?.block;
  if (!block || !UINT_RE.test(String(block.max_bytes)))
    fail('consensus_params.block.max_bytes', 'must be a positive integer string');
  if (!/^(-1|\d+)$/.test(String(block.max_gas)))
    fail('consensus_params.block.max_gas', 'must be an integer string (-1 = unlimited)');
  if (!Array.isArray(g.validators) || g.validators.length === 0)
    fail('validators', 'must list at least one validator');
  g.validators.forEach((v: any, i: number) => {
    if (!/^[0-9A-F]{40}$/.test(v?.address))
      fail(`validators[${i}].address`, 'must be 40 upper-case hex characters');
    if (v?.pub_key?.type !== 'tendermint/PubKeyEd25519' || typeof v.pub_key.value !== 'string') {
      fail(`validators[${i}].pub_key`, 'must be a tendermint/PubKeyEd25519 key');
    }
    if (!UINT_RE.test(String(v.power)) || v.power === '0')
      fail(`validators[${i}].power`, 'must be a positive integer string');
  });
  const app = g.app_state;
  for (const m of ['auth', 'bank', 'staking', 'evm'])
    if (typeof app?.[m] !== 'object') fail(`app_state.${m}`, 'is missing');
  const evm = app.evm.params;
  if (
    !UINT_RE.test(String(evm?.chain_id)) ||
    BigInt(evm.chain_id) === 0n ||
    BigInt(evm.chain_id) >= 2n ** 53n
  ) {
    fail('app_state.evm.params.chain_id', 'must be a positive integer below 2^53');
  }
  if (evm.state_commitment !== 'flatkv' && evm.state_commitment !== 'iavl') {
    fail('app_state.evm.params.state_commitment', 'must be "flatkv" or "iavl"');
  }
  (app.bank.balances ?? []).forEach((b: any, i: number) => {
    if (typeof b?.address !== 'string')
      fail(`app_state.bank.balances[${i}].address`, 'must be a bech32 address');
    (b.coins ?? []).forEach((c: any, j: number) => {
      if (c?.denom !== BASE_DENOM)
        fail(`app_state.bank.balances[${i}].coins[${j}].denom`, `must be "${BASE_DENOM}"`);
      if (!UINT_RE.test(String(c.amount)))
        fail(`app_state.bank.balances[${i}].coins[${j}].amount`, 'must be an integer string');
    });
  });
  if (!Array.isArray(app.staking.validators)) fail('app_state.staking.validators', 'must be a list');
  const problem = checkGenesisValidators(g.validators, app.staking);
  if (problem) throw new GenesisError(`${file}: ${problem}`);
  if (app.slashing !== undefined) {
    try {
      parseSlashingParams(app.slashing?.params, 'app_state.slashing.params');
    } catch (err) {
      if (!(err instanceof SlashingParamsError)) throw err;
      throw new GenesisError(`${file}: ${err.message}`);
    }
  }
  return g as Genesis;
}
