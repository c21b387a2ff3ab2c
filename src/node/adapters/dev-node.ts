/**
 * rpc/dev's DevNode over a dev chain's parts: the embedded producer (its mining mode and block
 * clock), the chain and the pools (snapshots: dev-snapshots.ts; state edits and dumps: a state patch
 * the producer commits as a block; impersonation: txs the mempool admits with their sender), and the
 * keys of the dev accounts this node signs for.
 */
import { randomBytes } from 'node:crypto';
import type { Chain } from '../../chain/chain.ts';
import type { Account } from '../../crypto/accounts.ts';
import { cosmosTxHash } from '../../app/cosmos-tx.ts';
import { wrapDevRecord } from '../../app/dev-records.ts';
import { dumpState, editsOfDump } from '../../app/dev-state-dump.ts';
import {
  impersonatedTransaction,
  signPersonalMessage,
  signTransaction,
  signTypedData,
} from '../../execution/signing.ts';
import { decodeImpersonatedTransaction } from '../../execution/transactions.ts';
import type { Fork } from '../../fork/fork.ts';
import type { CosmosPool } from '../../mempool/cosmos-pool.ts';
import type { Mempool } from '../../mempool/mempool.ts';
import { toHex } from '../../primitives/bytes.ts';
import type { BlockProducer } from '../../producer/producer.ts';
import type { DevNode, DevSigner, DevStateEdit } from '../../rpc/dev/index.ts';
import { devSnapshots } from './dev-snapshots.ts';

/** `web3_clientVersion` on a dev chain: Hardhat's network helpers run only for names like this. */
export function devClientVersion(nodeClientVersion: string): string {
  return `anvil-compatible ${nodeClientVersion}`;
}

export function devNode(o: {
  producer: BlockProducer;
  chain: Chain;
  mempool: Mempool;
  /** Resolves once `hash` is mined, when the mining mode mines what waits (the submission's rule). */
  untilMined: (hash: Uint8Array) => Promise<void>;
  cosmosPool: CosmosPool;
  /** The chain's fork, when it is one (hardhat_reset may fork another block of the remote). */
  fork?: Fork;
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
  const { producer, chain, mempool } = o;
  const impersonated = new Set<string>();
  let autoImpersonate = false;
  /** The edits as a state patch, committed as a block of its own. */
  const commitEdits = async (edits: DevStateEdit[]) => {
    const raw = wrapDevRecord({ kind: 'statePatch', edits });
    await producer.commitRecord({
      kind: 'devPatch',
      tx: { raw, hash: cosmosTxHash(raw), gasLimit: 0n, edits },
    });
  };
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
    state: {
      edit: commitEdits,
      dump: async () => {
        const at = chain.stateAt(chain.latestHeight);
        const ranges = {
          range: async function* (store: string, start: Uint8Array, end: Uint8Array | undefined) {
            for await (const [key, value] of at.range(store, start, end)) yield { key, value };
          },
        };
        return { height: at.height, accounts: await dumpState(ranges, (fn) => at.read(fn)) };
      },
      load: async (dump) => {
        const edits = editsOfDump(dump);
        if (edits.length > 0) await commitEdits(edits);
      },
    },
    impersonation: {
      start: (address) => void impersonated.add(toHex(address)),
      stop: (address) => impersonated.delete(toHex(address)),
      setAuto: (on) => {
        autoImpersonate = on;
      },
      has: (address) => autoImpersonate || impersonated.has(toHex(address)),
      send: async (tx, from) => {
        const decoded = decodeImpersonatedTransaction(impersonatedTransaction(tx), from, chain.common);
        await mempool.checkDecoded(decoded);
        if (mempool.isPending(decoded.hash)) await o.untilMined(decoded.hash);
        return decoded.hash;
      },
    },
    snapshots: devSnapshots({
      ...o,
      onReset: () => (node.instanceId = new Uint8Array(randomBytes(32))),
    }),
    dropTransaction: (hash) => mempool.remove(hash),
    instanceId: new Uint8Array(randomBytes(32)),
    clientVersion: devClientVersion(o.clientVersion),
  };
  return node;
}
