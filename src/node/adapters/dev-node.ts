/**
 * rpc/dev's DevNode over a dev chain's parts: the embedded producer (its mining mode and block
 * clock), the chain and the pools (snapshots: dev-snapshots.ts), and the keys of the dev accounts
 * this node signs for.
 */
import { randomBytes } from 'node:crypto';
import type { Chain } from '../../chain/chain.ts';
import type { Account } from '../../crypto/accounts.ts';
import { signPersonalMessage, signTransaction, signTypedData } from '../../execution/signing.ts';
import type { CosmosPool } from '../../mempool/cosmos-pool.ts';
import type { Mempool } from '../../mempool/mempool.ts';
import { toHex } from '../../primitives/bytes.ts';
import type { BlockProducer } from '../../producer/producer.ts';
import type { DevNode, DevSigner } from '../../rpc/dev/index.ts';
import { devSnapshots } from './dev-snapshots.ts';

/** `web3_clientVersion` on a dev chain: Hardhat's network helpers run only for names like this. */
export function devClientVersion(nodeClientVersion: string): string {
  return `anvil-compatible ${nodeClientVersion}`;
}

export function devNode(o: {
  producer: BlockProducer;
  chain: Chain;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  accounts: readonly Pick<Account, 'evmAddress' | 'privateKey'>[];
  clientVersion: string;
}): DevNode {
  const signers = new Map<string, DevSigner>();
  for (const a of o.accounts) {
    const key = a.privateKey;
    signers.set(toHex(a.evmAddress), {
      signTransaction: (tx) => signTransaction(tx, key),
      signMessage: (message) => signPersonalMessage(message, key),
      signTypedData: (typed) => signTypedData(typed, key),
    });
  }
  const { producer } = o;
  const node: DevNode = {
    mining: {
      mode: () => producer.mining,
      setMode: (mode) => producer.setMining(mode),
      mine: (count, intervalS) => producer.mine(count, intervalS),
    },
    clock: {
      increase: (s) => producer.clock.increase(s),
      setNext: (s) => producer.clock.setNext(s),
      setInterval: (s) => producer.clock.setInterval(s),
      interval: () => producer.clock.interval,
    },
    accounts: {
      list: () => o.accounts.map((a) => a.evmAddress),
      signer: (address) => signers.get(toHex(address)),
    },
    snapshots: devSnapshots({
      ...o,
      onReset: () => (node.instanceId = new Uint8Array(randomBytes(32))),
    }),
    dropTransaction: (hash) => o.mempool.remove(hash),
    instanceId: new Uint8Array(randomBytes(32)),
    clientVersion: devClientVersion(o.clientVersion),
  };
  return node;
}
