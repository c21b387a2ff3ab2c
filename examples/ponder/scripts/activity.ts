/**
 * Gives the indexer something to index on a running chain: deploys the Token and the Factory (unless
 * given), then in one round sends token transfers, creates children through the factory, and calls
 * into them both directly and through the factory (once with a call that reverts, caught by the factory). Prints one JSON line saying what it did, and
 * (with --env-file) writes the .env.local that ponder.config.ts reads.
 *
 * Usage: node scripts/activity.ts [--env-file] [--token 0x… --factory 0x…]
 *   PONDER_RPC_URL   the chain's EVM JSON-RPC (default http://127.0.0.1:8545, chaind dev's)
 *   PRIVATE_KEY      the sender (default: chaind dev's first account)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseEventLogs,
  type Address,
  type Hash,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ChildAbi } from '../abis/Child.ts';
import { FactoryAbi, FactoryBytecode } from '../abis/Factory.ts';
import { TokenAbi, TokenBytecode } from '../abis/Token.ts';

const { values } = parseArgs({
  options: {
    'env-file': { type: 'boolean', default: false },
    token: { type: 'string' },
    factory: { type: 'string' },
  },
});
const rpcUrl = process.env.PONDER_RPC_URL ?? 'http://127.0.0.1:8545';
const account = privateKeyToAccount(
  (process.env.PRIVATE_KEY ??
    '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80') as `0x${string}`,
);

const probe = createPublicClient({ transport: http(rpcUrl) });
const chainId = await probe.getChainId();
const chain = defineChain({
  id: chainId,
  name: 'chaind',
  nativeCurrency: { name: 'chain', symbol: 'CHAIN', decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl] } },
});
const client = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 100 });
const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });

const sent: Hash[] = [];
async function mined(hash: Hash) {
  sent.push(hash);
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
  return receipt;
}

async function deploy(abi: typeof TokenAbi | typeof FactoryAbi, bytecode: `0x${string}`, args: unknown[]) {
  const hash = await wallet.deployContract({ abi, bytecode, args } as never);
  const receipt = await mined(hash);
  return { address: receipt.contractAddress!, block: receipt.blockNumber };
}

const startHeight = await client.getBlockNumber();
let token = values.token as Address | undefined;
let factory = values.factory as Address | undefined;
let startBlock = startHeight + 1n;
if (!token || !factory) {
  const t = await deploy(TokenAbi, TokenBytecode, [10n ** 24n]);
  const f = await deploy(FactoryAbi, FactoryBytecode, []);
  token = t.address;
  factory = f.address;
  startBlock = t.block;
}

// children first: the calls below need their addresses
const round = Date.now().toString(36);
const first = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
const created: Hash[] = [];
for (const i of [0, 1, 2])
  created.push(
    await wallet.writeContract({
      address: factory,
      abi: FactoryAbi,
      functionName: 'createChild',
      args: [`child ${round}-${i}`],
      nonce: first + i,
      gas: 500_000n,
    }),
  );
const children: Address[] = [];
for (const hash of created) {
  const receipt = await mined(hash);
  const [log] = parseEventLogs({ abi: FactoryAbi, logs: receipt.logs, eventName: 'ChildCreated' });
  children.push(log.args.child);
}

// then transfers and calls, sent back to back so that blocks hold several of them
const recipients: Address[] = [
  '0x1111111111111111111111111111111111111111',
  '0x2222222222222222222222222222222222222222',
  '0x3333333333333333333333333333333333333333',
];
const base = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
const writes = [
  ...recipients.map((to, i) => ({
    address: token,
    abi: TokenAbi,
    functionName: 'transfer',
    args: [to, 1_000n * BigInt(i + 1)],
  })),
  ...children.map((child, i) => ({
    address: child,
    abi: ChildAbi,
    functionName: 'poke',
    args: [BigInt(i + 1)],
  })),
  ...children.map((child, i) => ({
    address: factory,
    abi: FactoryAbi,
    functionName: 'pokeChild',
    args: [child, BigInt(10 * (i + 1))],
  })),
  // a call into a child that reverts inside a transaction that does not
  { address: factory, abi: FactoryAbi, functionName: 'tryPokeChild', args: [children[0], 0n] },
];
const hashes: Hash[] = [];
for (const [i, w] of writes.entries())
  hashes.push(await wallet.writeContract({ ...(w as never), nonce: base + i, gas: 300_000n }));
let lastBlock = 0n;
for (const hash of hashes) lastBlock = (await mined(hash)).blockNumber;

const summary = {
  chainId,
  rpcUrl,
  token,
  factory,
  children,
  startBlock: Number(startBlock),
  lastBlock: Number(lastBlock),
  transactions: sent,
};
if (values['env-file']) {
  const env = [
    `PONDER_RPC_URL=${rpcUrl}`,
    `PONDER_CHAIN_ID=${chainId}`,
    `PONDER_TOKEN_ADDRESS=${token}`,
    `PONDER_FACTORY_ADDRESS=${factory}`,
    `PONDER_START_BLOCK=${startBlock}`,
  ];
  writeFileSync(join(import.meta.dirname, '..', '.env.local'), env.join('\n') + '\n');
}
console.log(JSON.stringify(summary));
