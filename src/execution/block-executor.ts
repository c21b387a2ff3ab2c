/**
 * Executes a block's Ethereum transactions on ethereumjs over the block's StateOverlay. One executor
 * per block: it owns the VM, the block environment, the running gas total and the receipts.
 *
 * Chain rules applied around ethereumjs's runTx (DESIGN §4, §6):
 * - a sender's first transaction associates its EVM and Cosmos addresses and moves the cast
 *   address's balance to the real Cosmos account;
 * - ethereumjs pays the coinbase only the priority fee and burns the base fee; here the full
 *   effective gas price × gas used goes to the fee collector, so the base-fee part is credited after.
 */
import { createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Auth } from '../app/auth.ts';
import { Bank } from '../app/bank.ts';
import { Evm } from '../app/evm.ts';
import type { StateOverlay } from '../state/overlay.ts';
import { errorMessage } from '../util/errors.ts';
import { ChainStateManager } from './state-manager.ts';
import './jumpdest-cache.ts';
import { attachTracer, txStartOf } from './tracing/bridge.ts';
import type { TxTracer } from './tracing/tracer.ts';
import type { DecodedEthTx } from './transactions.ts';

export interface BlockEnv {
  height: bigint;
  /** seconds */
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  /** EVM address of the fee collector: what COINBASE returns */
  coinbase: Uint8Array;
  /** App hash the block builds on (reported as the state root to ethereumjs). */
  parentAppHash: Uint8Array;
  /** Hash of an earlier block, for BLOCKHASH (undefined when unknown or out of range). */
  blockHash(height: bigint): Uint8Array | undefined;
}

export interface EthLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface EthTxOutcome {
  tx: DecodedEthTx;
  /** 1 success, 0 failure (reverted, out of gas, invalid opcode…) */
  status: 0 | 1;
  gasUsed: bigint;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  contractAddress: Uint8Array | null;
  logs: EthLog[];
  /** Execution error text for failed txs (e.g. "revert", "out of gas"). */
  error?: string;
  returnData: Uint8Array;
}

/** A transaction that cannot be included at all (bad nonce, cannot pay, over the block's gas). */
export interface EthTxRejection {
  tx: DecodedEthTx;
  reason: string;
}

export interface ExecuteOptions {
  /** traces this transaction (see tracing/index.ts); without it no EVM hooks are registered */
  tracer?: TxTracer;
}

export class BlockExecutor {
  readonly env: BlockEnv;
  readonly overlay: StateOverlay;
  private readonly vm: VM;
  private readonly block: ReturnType<typeof createBlock>;
  private readonly evm: Evm;
  private readonly bank: Bank;
  private readonly auth: Auth;
  private gasUsed = 0n;

  private constructor(env: BlockEnv, overlay: StateOverlay, vm: VM, block: ReturnType<typeof createBlock>) {
    this.env = env;
    this.overlay = overlay;
    this.vm = vm;
    this.block = block;
    this.evm = new Evm(overlay);
    this.bank = new Bank(overlay);
    this.auth = new Auth(overlay);
  }

  static async create(common: Common, env: BlockEnv, overlay: StateOverlay): Promise<BlockExecutor> {
    const stateManager = new ChainStateManager(overlay, env.parentAppHash);
    const blockchain = {
      getBlock: async (n: number) => {
        const hash = env.blockHash(BigInt(n));
        return { hash: () => hash ?? new Uint8Array(32) };
      },
      putBlock: async () => {},
      shallowCopy() {
        return this;
      },
    };
    const vm = await createVM({ common, stateManager, blockchain: blockchain as never });
    const block = createBlock(
      {
        header: {
          number: env.height,
          timestamp: env.timestamp,
          gasLimit: env.gasLimit,
          baseFeePerGas: env.baseFee,
          coinbase: new Address(env.coinbase),
          difficulty: 0n,
          mixHash: new Uint8Array(32),
          parentBeaconBlockRoot: new Uint8Array(32),
        },
      },
      { common, setHardfork: false, skipConsensusFormatValidation: true },
    );
    return new BlockExecutor(env, overlay, vm, block);
  }

  get blockGasUsed(): bigint {
    return this.gasUsed;
  }

  /** Runs one transaction; state changes of a rejected transaction are undone. */
  /** `otherGas`: gas the block's non-EVM transactions already claimed from the block gas limit. */
  async execute(
    tx: DecodedEthTx,
    otherGas = 0n,
    opts?: ExecuteOptions,
  ): Promise<EthTxOutcome | EthTxRejection> {
    if (this.gasUsed + otherGas + tx.gasLimit > this.env.gasLimit) {
      return {
        tx,
        reason: `block gas limit reached: ${this.gasUsed} used of ${this.env.gasLimit}, tx gas limit ${tx.gasLimit}`,
      };
    }
    const trace = opts?.tracer
      ? attachTracer(
          this.vm,
          opts.tracer,
          txStartOf(tx.tx, tx.sender, this.env.coinbase),
          this.vm.stateManager,
        )
      : undefined;
    // the prestate is read before the sender's first-transaction association moves balances
    await trace?.start();
    this.overlay.checkpoint();
    try {
      this.associateSender(tx);
      const result = await runTx(this.vm, {
        tx: tx.tx,
        block: this.block as never,
        blockGasUsed: this.gasUsed,
      });
      const gasUsed = result.totalGasSpent;
      const effectiveGasPrice = gasUsed === 0n ? 0n : result.amountSpent / gasUsed;
      this.bank.addWei(this.evm.balanceAddressOf(this.env.coinbase), gasUsed * this.env.baseFee);
      await trace?.end({ gasUsed });
      this.overlay.commit();
      this.gasUsed += gasUsed;
      const exec = result.execResult;
      return {
        tx,
        status: exec.exceptionError ? 0 : 1,
        gasUsed,
        cumulativeGasUsed: this.gasUsed,
        effectiveGasPrice,
        contractAddress: result.createdAddress ? result.createdAddress.bytes : null,
        logs: (exec.logs ?? []).map(([address, topics, data]) => ({ address, topics, data })),
        error: exec.exceptionError?.error,
        returnData: exec.returnValue,
      };
    } catch (err) {
      this.overlay.revert();
      // an aborted trace (timeout, abort()) is the caller's error, not a property of the transaction
      const stop = opts?.tracer?.abortReason;
      if (stop) throw stop;
      return { tx, reason: errorMessage(err) };
    } finally {
      trace?.detach();
    }
  }

  /** First transaction of a key: link its addresses, move the cast's balance, record the key. */
  private associateSender(tx: DecodedEthTx): void {
    if (this.evm.cosmosAddressOf(tx.sender)) return;
    const publicKey = secp256k1.Point.fromBytes(concatPrefix(tx.tx.getSenderPublicKey())).toBytes(true);
    const cosmos = ripemd160(sha256(publicKey));
    this.evm.associate(tx.sender, cosmos);
    this.bank.transferWei(tx.sender, cosmos, this.bank.wei(tx.sender));
    const account = this.auth.ensureAccount(cosmos);
    if (!account.pubKey) this.auth.setAccount({ ...account, pubKey: publicKey });
  }
}

/** ethereumjs returns the 64-byte key without the 0x04 prefix of the uncompressed SEC1 form. */
function concatPrefix(key64: Uint8Array): Uint8Array {
  const out = new Uint8Array(65);
  out[0] = 4;
  out.set(key64, 1);
  return out;
}

export function isRejection(r: EthTxOutcome | EthTxRejection): r is EthTxRejection {
  return 'reason' in r;
}
