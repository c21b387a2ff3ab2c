/**
 * The steady mixed load of a chaos run: EVM transfers, ERC20 transfers (contract calls) and Cosmos
 * bank sends, each sender sending one tx at a time to its RPC node (falling back to the other when
 * its node does not answer) and waiting for its receipt. A tx not confirmed in time is given up: the
 * sender re-reads its nonce or sequence and goes on with a replacement at a higher fee. Every receipt
 * any node serves is recorded with the node that served it: the invariants later check that each one
 * is, at the end, the same on every node.
 */
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { ContractFactory, Interface, Wallet, getAddress } from 'ethers';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import { artifacts } from '../dev-chain.ts';
import { DEV_ACCOUNTS } from '../node.ts';
import type { ChaosCluster, ChaosNode } from './cluster.ts';
import type { Rng } from './rng.ts';
import { get, hex, jsonRpc, result, sleep } from './rpc.ts';

/** A receipt (EVM) or tx result (Cosmos) as one node served it. */
export interface SeenTx {
  kind: 'transfer' | 'erc20' | 'bank';
  hash: string;
  node: string;
  blockNumber: number;
  /** What must be equal on every node: the receipt's JSON, or the Cosmos result's fields. */
  digest: string;
}

export interface LoadStats {
  sent: Record<string, number>;
  confirmed: Record<string, number>;
  givenUp: Record<string, number>;
}

const hexKey = (k: Uint8Array) => '0x' + Buffer.from(k).toString('hex');
const token = new Interface(artifacts.TestToken.abi);

/** The receipt fields every node must agree on (all of them: a receipt is consensus data). */
export function receiptDigest(r: any): string {
  return JSON.stringify(r);
}

/** The Cosmos tx result fields every node must agree on. */
export function bankDigest(tx: any): string {
  const r = tx.tx_result ?? {};
  return JSON.stringify({
    height: tx.height,
    index: tx.index,
    code: r.code,
    gas_used: r.gas_used,
    data: r.data,
  });
}

export class ChaosLoad {
  readonly seen = new Map<string, SeenTx>();
  /** Every hash sent, with its kind: a tx sent but never confirmed is allowed (it may have been lost with a node's mempool); a confirmed one never is. */
  readonly sent = new Map<string, SeenTx['kind']>();
  readonly stats: LoadStats = { sent: {}, confirmed: {}, givenUp: {} };
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private chainId = 0n;
  private tokenAddress = '';
  private readonly cosmosChainId: string;

  private readonly cluster: ChaosCluster;
  private readonly rng: Rng;

  constructor(cluster: ChaosCluster, rng: Rng, o: { cosmosChainId: string }) {
    this.cluster = cluster;
    this.rng = rng;
    this.cosmosChainId = o.cosmosChainId;
  }

  private count(what: keyof LoadStats, kind: string) {
    this.stats[what][kind] = (this.stats[what][kind] ?? 0) + 1;
  }

  /** RPC nodes to try for sender `i`: its own first. */
  private order(i: number): ChaosNode[] {
    const rpc = this.cluster.rpcNodes;
    return [...rpc.slice(i % rpc.length), ...rpc.slice(0, i % rpc.length)];
  }

  /** Deploys the token (dev account 0) and gives half of it to account 5. */
  async setup(): Promise<void> {
    const url = this.cluster.evmUrl(this.cluster.rpcNodes[0]);
    this.chainId = BigInt(await result(url, 'eth_chainId'));
    const deployer = new Wallet(hexKey(DEV_ACCOUNTS[0].privateKey));
    const factory = new ContractFactory(artifacts.TestToken.abi, artifacts.TestToken.bytecode);
    const deploy = await factory.getDeployTransaction('Chaos', 'CHS', 10n ** 24n);
    const nonce = Number(await result(url, 'eth_getTransactionCount', [deployer.address, 'latest']));
    const r1 = await this.sendEvm(
      0,
      'erc20',
      deployer,
      { ...deploy, nonce, gasLimit: 3_000_000n },
      0n,
      120_000,
    );
    if (!r1?.contractAddress) throw new Error('the token deployment was not confirmed');
    this.tokenAddress = getAddress(r1.contractAddress);
    const half = token.encodeFunctionData('transfer', [
      getAddress(hexKey(DEV_ACCOUNTS[5].evmAddress)),
      10n ** 23n,
    ]);
    const r2 = await this.sendEvm(
      0,
      'erc20',
      deployer,
      { to: this.tokenAddress, data: half, nonce: nonce + 1, gasLimit: 100_000n },
      0n,
      120_000,
    );
    if (!r2 || r2.status !== '0x1') throw new Error('the token transfer to account 5 failed');
  }

  get token(): string {
    return this.tokenAddress;
  }

  start(): void {
    for (const i of [1, 2, 3, 4]) this.loops.push(this.evmLoop(i, 'transfer'));
    for (const i of [0, 5]) this.loops.push(this.evmLoop(i, 'erc20'));
    for (const i of [7, 8]) this.loops.push(this.bankLoop(i));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
  }

  /**
   * Sends one signed EVM tx through sender `i`'s nodes and waits up to `ms` for its receipt.
   * Returns the receipt, or undefined when it was not confirmed in time (or not accepted).
   */
  private async sendEvm(
    i: number,
    kind: SeenTx['kind'],
    wallet: Wallet,
    tx: Record<string, unknown>,
    bump: bigint,
    ms: number,
  ): Promise<any> {
    const tip = 1_000_000_000n + bump;
    const raw = await wallet.signTransaction({
      ...tx,
      chainId: this.chainId,
      type: 2,
      maxPriorityFeePerGas: tip,
      maxFeePerGas: 200_000_000_000n + bump,
    });
    const deadline = Date.now() + ms;
    let hash: string | undefined;
    for (const n of this.order(i)) {
      try {
        const a = await jsonRpc(this.cluster.evmUrl(n), 'eth_sendRawTransaction', [raw]);
        if (a.result) {
          hash = a.result as string;
          break;
        }
        // already known, nonce too low, …: the caller re-reads its nonce
        if (a.error) return undefined;
      } catch {
        // that node is down, paused or cut off: try the next
      }
    }
    if (!hash) return undefined;
    this.sent.set(hash, kind);
    this.count('sent', kind);
    while (Date.now() < deadline && !this.stopping) {
      for (const n of this.order(i)) {
        try {
          const a = await jsonRpc(this.cluster.evmUrl(n), 'eth_getTransactionReceipt', [hash], 3_000);
          if (a.result) {
            this.seen.set(hash, {
              kind,
              hash,
              node: n.name,
              blockNumber: Number(a.result.blockNumber),
              digest: receiptDigest(a.result),
            });
            this.count('confirmed', kind);
            return a.result;
          }
        } catch {
          // try the other node
        }
      }
      await sleep(250);
    }
    this.count('givenUp', kind);
    return undefined;
  }

  private async nonceOf(i: number, address: string): Promise<number | undefined> {
    for (const n of this.order(i)) {
      try {
        return Number(await result(this.cluster.evmUrl(n), 'eth_getTransactionCount', [address, 'latest']));
      } catch {
        // next
      }
    }
    return undefined;
  }

  private async evmLoop(i: number, kind: 'transfer' | 'erc20'): Promise<void> {
    const wallet = new Wallet(hexKey(DEV_ACCOUNTS[i].privateKey));
    const to = getAddress(hexKey(DEV_ACCOUNTS[9].evmAddress));
    let nonce: number | undefined;
    let bump = 0n;
    while (!this.stopping) {
      nonce ??= await this.nonceOf(i, wallet.address);
      if (nonce === undefined) {
        await sleep(1_000);
        continue;
      }
      const tx =
        kind === 'transfer'
          ? { to, value: BigInt(1 + this.rng.int(1_000_000)), nonce, gasLimit: 21_000n }
          : {
              to: this.tokenAddress,
              data: token.encodeFunctionData('transfer', [to, BigInt(1 + this.rng.int(1_000))]),
              nonce,
              gasLimit: 100_000n,
            };
      const r = await this.sendEvm(i, kind, wallet, tx, bump, 30_000);
      if (r) {
        nonce++;
        bump = 0n;
      } else {
        // not confirmed: the next try re-reads the nonce and pays more, replacing it wherever it waits
        nonce = undefined;
        bump += 2_000_000_000n;
      }
      await sleep(100 + this.rng.int(300));
    }
  }

  private async bankLoop(i: number): Promise<void> {
    const key = DEV_ACCOUNTS[i].privateKey;
    const wallet = await DirectSecp256k1Wallet.fromKey(key, 'chain');
    const [{ address }] = await wallet.getAccounts();
    const client = await SigningStargateClient.offline(wallet);
    const to = toAccAddress(DEV_ACCOUNTS[9].cosmosAddress);
    let account: { number: bigint; sequence: bigint } | undefined;
    while (!this.stopping) {
      account ??= await this.accountOf(i, address);
      if (!account) {
        await sleep(1_000);
        continue;
      }
      const signed = await client.sign(
        address,
        [
          {
            typeUrl: '/cosmos.bank.v1beta1.MsgSend',
            value: {
              fromAddress: address,
              toAddress: to,
              amount: [{ denom: 'uchain', amount: String(1 + this.rng.int(1000)) }],
            },
          },
        ],
        { amount: [{ denom: 'uchain', amount: '2000' }], gas: '200000' },
        '',
        {
          accountNumber: account.number,
          sequence: Number(account.sequence),
          chainId: this.cosmosChainId,
        },
      );
      const ok = await this.sendBank(i, Buffer.from(TxRaw.encode(signed).finish()));
      if (ok) account.sequence++;
      else account = undefined;
      await sleep(100 + this.rng.int(300));
    }
  }

  private async accountOf(
    i: number,
    address: string,
  ): Promise<{ number: bigint; sequence: bigint } | undefined> {
    for (const n of this.order(i)) {
      try {
        const r = await get(`${this.cluster.restUrl(n)}/cosmos/auth/v1beta1/accounts/${address}`);
        if (r.status !== 200) continue;
        const body = JSON.parse(r.text);
        const acc = body.account.base_account ?? body.account;
        return { number: BigInt(acc.account_number), sequence: BigInt(acc.sequence ?? 0) };
      } catch {
        // next
      }
    }
    return undefined;
  }

  private async sendBank(i: number, raw: Buffer): Promise<boolean> {
    let hash: string | undefined;
    for (const n of this.order(i)) {
      try {
        const a = await jsonRpc(this.cluster.rpcUrl(n), 'broadcast_tx_sync', { tx: raw.toString('base64') });
        if (a.result && a.result.code === 0) {
          hash = a.result.hash as string;
          break;
        }
        if (a.result || a.error) return false;
      } catch {
        // next
      }
    }
    if (!hash) return false;
    this.sent.set(hash, 'bank');
    this.count('sent', 'bank');
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !this.stopping) {
      for (const n of this.order(i)) {
        try {
          const a = await jsonRpc(
            this.cluster.rpcUrl(n),
            'tx',
            { hash: Buffer.from(hash, 'hex').toString('base64') },
            3_000,
          );
          if (a.result) {
            this.seen.set(hash, {
              kind: 'bank',
              hash,
              node: n.name,
              blockNumber: Number(a.result.height),
              digest: bankDigest(a.result),
            });
            this.count('confirmed', 'bank');
            return a.result.tx_result?.code === 0;
          }
        } catch {
          // next
        }
      }
      await sleep(250);
    }
    this.count('givenUp', 'bank');
    return false;
  }
}

/** The receipt or Cosmos result of `tx` on `node` now: undefined when it has none. */
export async function lookup(
  cluster: ChaosCluster,
  node: ChaosNode,
  tx: SeenTx,
): Promise<string | undefined> {
  if (tx.kind === 'bank') {
    const a = await jsonRpc(
      cluster.rpcUrl(node),
      'tx',
      { hash: Buffer.from(tx.hash, 'hex').toString('base64') },
      10_000,
    );
    const byHash = a.result ? bankDigest(a.result) : undefined;
    // the search must find it too: an index written apart from the block can miss a height
    const s = await jsonRpc(
      cluster.rpcUrl(node),
      'tx_search',
      { query: `tx.hash='${tx.hash.toUpperCase()}'` },
      10_000,
    );
    const found = s.result?.txs?.[0];
    const bySearch = found ? bankDigest(found) : undefined;
    return bySearch === byHash ? byHash : `/tx ${byHash ?? 'missing'}, /tx_search ${bySearch ?? 'missing'}`;
  }
  const a = await jsonRpc(cluster.evmUrl(node), 'eth_getTransactionReceipt', [tx.hash], 10_000);
  return a.result ? receiptDigest(a.result) : undefined;
}

export { hex };
