/**
 * `chaind init`: writes a complete home — config.toml, app.toml, genesis.json, node and validator
 * keys, and the validator's double-sign state — so that `chaind start` runs without another step.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildGenesis, type Genesis, type GenesisOptions, type StateCommitment } from '../app/genesis.ts';
import { defaultConfig } from '../config/load.ts';
import { renderConfigFile } from '../config/render.ts';
import type { NodeConfig } from '../config/schema.ts';
import {
  ed25519Address,
  ed25519FromJson,
  type Ed25519Key,
  generateEd25519,
  nodeIdOf,
  nodeKeyJson,
  privValidatorKeyJson,
} from '../crypto/node-keys.ts';
import { toValoperAddress } from '../crypto/accounts.ts';
import { dataDirOf } from '../node/node.ts';
import { ChainError } from '../util/errors.ts';

export interface InitOptions {
  home: string;
  moniker: string;
  chainId: string;
  evmChainId?: number;
  overwrite?: boolean;
  stateCommitment?: StateCommitment;
  /** Operator address bytes for the genesis validator; defaults to the consensus key's address. */
  operatorAddress?: Uint8Array;
  balances?: GenesisOptions['balances'];
  associations?: GenesisOptions['associations'];
  genesisTime?: Date;
  /** The genesis block gas limit (consensus_params.block.max_gas); the genesis default unless given. */
  blockMaxGas?: bigint;
  /** Changes to the default configuration before it is written (`chaind dev`'s browser-friendly CORS). */
  configure?: (cfg: NodeConfig) => void;
}

export interface InitResult {
  moniker: string;
  chain_id: string;
  node_id: string;
}

export function initHome(o: InitOptions): InitResult {
  const configDir = join(o.home, 'config');
  const files = {
    config: join(configDir, 'config.toml'),
    app: join(configDir, 'app.toml'),
    genesis: join(configDir, 'genesis.json'),
    nodeKey: join(configDir, 'node_key.json'),
    validatorKey: join(configDir, 'priv_validator_key.json'),
  };
  if (!/^[A-Za-z0-9_.-]{1,50}$/.test(o.chainId)) {
    throw new ChainError(
      'BAD_ARGUMENT',
      `--chain-id ${JSON.stringify(o.chainId)}: use 1-50 letters, digits, "-", "_" or "."`,
    );
  }
  // An app.toml alone is an operator's settings kept across a re-initialisation (the evm-ss-split
  // migration wipes the rest and re-inits): it is kept as it is. config.toml or genesis.json means an
  // initialised home.
  const keepApp =
    existsSync(files.app) && !existsSync(files.config) && !existsSync(files.genesis) && !o.overwrite;
  const existing = [files.config, files.app, files.genesis].filter(
    (f) => existsSync(f) && !(keepApp && f === files.app),
  );
  if (existing.length > 0 && !o.overwrite) {
    throw new ChainError(
      'ALREADY_INITIALIZED',
      `${existing[0]} already exists; pass --overwrite to replace the configuration and genesis`,
    );
  }
  mkdirSync(configDir, { recursive: true });

  // Keys survive --overwrite: replacing a validator key would orphan the validator.
  const nodeKey = loadOrCreateKey(files.nodeKey, nodeKeyJson);
  const validatorKey = loadOrCreateKey(files.validatorKey, privValidatorKeyJson);

  const cfg = defaultConfig();
  cfg.config.moniker = o.moniker;
  o.configure?.(cfg);
  writeFileSync(files.config, renderConfigFile('config.toml', cfg));
  if (!keepApp) writeFileSync(files.app, renderConfigFile('app.toml', cfg));

  const consensusAddress = ed25519Address(validatorKey.publicKey);
  const genesis: Genesis = buildGenesis({
    chainId: o.chainId,
    evmChainId: o.evmChainId,
    moniker: o.moniker,
    genesisTime: o.genesisTime,
    stateCommitment: o.stateCommitment,
    validator: {
      address: Buffer.from(consensusAddress).toString('hex').toUpperCase(),
      pubKeyBase64: Buffer.from(validatorKey.publicKey).toString('base64'),
      operatorAddress: toValoperAddress(o.operatorAddress ?? consensusAddress),
    },
    balances: o.balances,
    associations: o.associations,
    blockMaxGas: o.blockMaxGas,
  });
  writeFileSync(files.genesis, JSON.stringify(genesis, null, 2) + '\n');

  const statePath = join(dataDirOf(o.home, cfg), 'priv_validator_state.json');
  if (!existsSync(statePath)) {
    mkdirSync(dirname(statePath), { recursive: true });
    writeFileSync(statePath, JSON.stringify({ height: '0', round: 0, step: 0 }, null, 2) + '\n');
  }
  return { moniker: o.moniker, chain_id: o.chainId, node_id: nodeIdOf(nodeKey.publicKey) };
}

function loadOrCreateKey(path: string, toJson: (k: Ed25519Key) => object): Ed25519Key {
  if (existsSync(path)) return ed25519FromJson(JSON.parse(readFileSync(path, 'utf8')), path);
  const key = generateEd25519();
  writeFileSync(path, JSON.stringify(toJson(key), null, 2) + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return key;
}
