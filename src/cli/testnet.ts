/**
 * `chaind testnet`: the homes of a local network on 127.0.0.1 — N validators bonded in one shared
 * genesis and M RPC nodes (full nodes outside the validator set), every node listing the others as
 * persistent peers, each on its own ports — plus `testnet.json` describing them. Each node is then
 * one `chaind start --home <dir>`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildGenesis } from '../app/genesis.ts';
import { accountsFromMnemonic, toValoperAddress } from '../crypto/accounts.ts';
import { ed25519Address, ed25519FromJson } from '../crypto/node-keys.ts';
import { toHex } from '../primitives/bytes.ts';
import { ChainError } from '../util/errors.ts';
import { DEV_ACCOUNT_COUNT, DEV_MNEMONIC, devAccountsGenesis } from './dev.ts';
import { initHome } from './init.ts';

export interface TestnetOptions {
  validators: number;
  rpcNodes: number;
  output: string;
  chainId?: string;
  /** Node i uses basePort + 10 i + 0…6. */
  basePort?: number;
  evmChainId?: number;
  genesisTime?: Date;
}

export interface TestnetNode {
  name: string;
  role: 'validator' | 'rpc';
  home: string;
  node_id: string;
  ports: {
    p2p: number;
    rpc: number;
    evm_http: number;
    evm_ws: number;
    rest: number;
    grpc: number;
    metrics: number;
  };
}

export interface TestnetManifest {
  chain_id: string;
  nodes: TestnetNode[];
}

const PORT_OFFSETS = { p2p: 0, rpc: 1, evm_http: 2, evm_ws: 3, rest: 4, grpc: 5, metrics: 6 } as const;

export function createTestnet(o: TestnetOptions): TestnetManifest {
  if (!Number.isInteger(o.validators) || o.validators < 1)
    throw new ChainError(
      'BAD_ARGUMENT',
      `--validators ${o.validators}: a network needs at least one validator`,
    );
  if (!Number.isInteger(o.rpcNodes) || o.rpcNodes < 0)
    throw new ChainError('BAD_ARGUMENT', `--rpc-nodes ${o.rpcNodes}: give 0 or more`);
  const chainId = o.chainId ?? 'chaind-testnet';
  const basePort = o.basePort ?? 26600;
  const count = o.validators + o.rpcNodes;
  if (basePort < 1024 || basePort + 10 * count > 65535)
    throw new ChainError(
      'BAD_ARGUMENT',
      `--base-port ${basePort}: the ${count} nodes need ports ${basePort}…${basePort + 10 * count}`,
    );
  const output = resolve(o.output);
  const genesisTime = o.genesisTime ?? new Date();
  const accounts = accountsFromMnemonic(DEV_MNEMONIC, DEV_ACCOUNT_COUNT);
  const nodes: TestnetNode[] = [];
  for (let i = 0; i < count; i++) {
    const role = i < o.validators ? 'validator' : 'rpc';
    const name = role === 'validator' ? `validator${i}` : `rpc${i - o.validators}`;
    const base = basePort + 10 * i;
    const ports = Object.fromEntries(
      Object.entries(PORT_OFFSETS).map(([k, off]) => [k, base + off]),
    ) as TestnetNode['ports'];
    const home = join(output, name);
    mkdirSync(home, { recursive: true });
    const { node_id } = initHome({
      home,
      moniker: name,
      chainId,
      evmChainId: o.evmChainId,
      genesisTime,
      overwrite: true,
      configure: (cfg) => {
        cfg.config.consensus.engine = 'cometbft';
        cfg.config.p2p.laddr = `tcp://127.0.0.1:${ports.p2p}`;
        cfg.config.p2p.addrBookStrict = false;
        cfg.config.p2p.allowDuplicateIp = true;
        cfg.config.rpc.laddr = `tcp://127.0.0.1:${ports.rpc}`;
        cfg.config.instrumentation.prometheusListenAddr = `127.0.0.1:${ports.metrics}`;
        cfg.app.evm.httpPort = ports.evm_http;
        cfg.app.evm.wsPort = ports.evm_ws;
        cfg.app.api.address = `tcp://127.0.0.1:${ports.rest}`;
        cfg.app.grpc.address = `127.0.0.1:${ports.grpc}`;
      },
    });
    nodes.push({ name, role, home, node_id, ports });
  }

  // one genesis: every validator node's key bonded, the dev accounts funded and associated
  const validators = nodes
    .filter((n) => n.role === 'validator')
    .map((n) => {
      const keyPath = join(n.home, 'config', 'priv_validator_key.json');
      const key = ed25519FromJson(JSON.parse(readFileSync(keyPath, 'utf8')), keyPath);
      const address = ed25519Address(key.publicKey);
      return {
        address: toHex(address).toUpperCase(),
        pubKeyBase64: Buffer.from(key.publicKey).toString('base64'),
        operatorAddress: toValoperAddress(address),
        moniker: n.name,
      };
    });
  const genesis = buildGenesis({
    chainId,
    evmChainId: o.evmChainId,
    moniker: validators[0].moniker,
    genesisTime,
    validator: validators[0],
    moreValidators: validators.slice(1),
    ...devAccountsGenesis(accounts),
  });
  const genesisJson = JSON.stringify(genesis, null, 2) + '\n';
  for (const n of nodes) {
    writeFileSync(join(n.home, 'config', 'genesis.json'), genesisJson);
    const peers = nodes.filter((p) => p !== n).map((p) => `${p.node_id}@127.0.0.1:${p.ports.p2p}`);
    setPersistentPeers(join(n.home, 'config', 'config.toml'), peers);
  }
  const manifest: TestnetManifest = { chain_id: chainId, nodes };
  writeFileSync(join(output, 'testnet.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

/** Rewrites the `persistent-peers` line of a rendered config.toml (keeping its comment). */
function setPersistentPeers(path: string, peers: string[]): void {
  const text = readFileSync(path, 'utf8');
  const line = `persistent-peers = ${JSON.stringify(peers)}`;
  const next = text.replace(/^persistent-peers = .*$/m, line);
  if (next === text && !text.includes(line))
    throw new ChainError('CONFIG_INVALID', `config.toml at ${path} has no persistent-peers line to fill in`);
  writeFileSync(path, next);
}
