/** Shared fixtures for the mempool tests: real signed txs (ethers), real decoder, in-memory accounts. */
import { Wallet, type TransactionRequest } from 'ethers';
import { accountsFromMnemonic } from '../../../src/crypto/accounts.ts';
import { createChainCommon } from '../../../src/execution/chain-config.ts';
import { createEthTxDecoder } from '../../../src/execution/transactions.ts';
import {
  Mempool,
  type AccountReader,
  type MempoolOptions,
  type MempoolParams,
} from '../../../src/mempool/index.ts';
import { fromHex, toHex } from '../../../src/primitives/bytes.ts';

export const CHAIN_ID = 713714n;
export const GWEI = 10n ** 9n;
export const ETHER = 10n ** 18n;
export const BLOCK_GAS_LIMIT = 30_000_000n;
export const common = createChainCommon({ chainId: CHAIN_ID });
export const decode = createEthTxDecoder(common);

const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
/** Dev accounts 0-9 as ethers wallets. */
export const wallets: Wallet[] = accountsFromMnemonic(DEV_MNEMONIC, 10).map(
  (a) => new Wallet('0x' + toHex(a.privateKey)),
);

export const addr = (w: Wallet): Uint8Array => fromHex(w.address);
export const RECIPIENT = '0x' + '42'.repeat(20);

/** A small, honest AccountReader over maps (the "latest committed state" of the tests). */
export class MemAccounts implements AccountReader {
  readonly nonces = new Map<string, bigint>();
  readonly balances = new Map<string, bigint>();
  reads = 0;

  set(address: Uint8Array | string, state: { nonce?: bigint; balance?: bigint }): this {
    const k = typeof address === 'string' ? address.toLowerCase().replace(/^0x/, '') : toHex(address);
    if (state.nonce !== undefined) this.nonces.set(k, state.nonce);
    if (state.balance !== undefined) this.balances.set(k, state.balance);
    return this;
  }

  async nonce(address: Uint8Array): Promise<bigint> {
    this.reads++;
    return this.nonces.get(toHex(address)) ?? 0n;
  }

  async balance(address: Uint8Array): Promise<bigint> {
    this.reads++;
    return this.balances.get(toHex(address)) ?? 0n;
  }
}

export interface Harness {
  pool: Mempool;
  accounts: MemAccounts;
  clock: { now: number };
  params: MempoolParams & { baseFeeValue: bigint };
}

export function harness(options: Partial<MempoolOptions> = {}, funded = 100n * ETHER): Harness {
  const accounts = new MemAccounts();
  for (const w of wallets) accounts.set(w.address, { nonce: 0n, balance: funded });
  const clock = { now: 1_000_000 };
  const params = {
    chainId: CHAIN_ID,
    blockGasLimit: BLOCK_GAS_LIMIT,
    maxTxBytes: 128 * 1024,
    baseFeeValue: GWEI,
    baseFee(): bigint {
      return this.baseFeeValue;
    },
  };
  const pool = new Mempool({ options, params, accounts, decode, now: () => clock.now });
  return { pool, accounts, clock, params };
}

/** Signs an EIP-1559 transfer by default; any field can be overridden (type 0/1/4 too). */
export async function signTx(wallet: Wallet, fields: TransactionRequest = {}): Promise<Uint8Array> {
  const tx: TransactionRequest = {
    type: 2,
    chainId: CHAIN_ID,
    nonce: 0,
    to: RECIPIENT,
    value: 1n,
    gasLimit: 21000n,
    maxFeePerGas: 2n * GWEI,
    maxPriorityFeePerGas: GWEI,
    ...fields,
  };
  if (tx.type === 0 || tx.type === 1) {
    tx.gasPrice ??= 2n * GWEI;
    delete tx.maxFeePerGas;
    delete tx.maxPriorityFeePerGas;
  }
  return fromHex(await wallet.signTransaction(tx));
}

export const hex = (b: Uint8Array): string => '0x' + toHex(b);
