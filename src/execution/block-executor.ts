/**
 * Executes a block's Ethereum transactions on ethereumjs over the block's StateOverlay. One executor
 * per block: it holds a pooled VM until `release`, the block environment, the running gas total and
 * the receipts.
 *
 * Chain rules applied around ethereumjs's runTx (docs/adr/0013-one-key-two-addresses.md,
 * docs/adr/0007-failed-before-execution-inclusion.md):
 * - a sender's first transaction associates its EVM and Cosmos addresses and moves the cast
 *   address's balance to the real Cosmos account;
 * - ethereumjs pays the coinbase only the priority fee and burns the base fee; here the full
 *   effective gas price × gas used goes to the fee collector, so the base-fee part is credited after;
 * - a tx that cannot pay its up-front cost when its turn comes is included, failed before execution
 *   (`preExecutionFailure`): as a CometBFT chain delivers a tx the proposer already put in the block.
 */
import { createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { Address, hexToBytes } from '@ethereumjs/util';
import type { EVM } from '@ethereumjs/evm';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { Auth } from '../app/auth.ts';
import { Bank } from '../app/bank.ts';
import { Evm } from '../app/evm.ts';
import { toChecksumAddress } from '../crypto/accounts.ts';
import type { StateOverlay } from '../state/overlay.ts';
import { ChainError, errorMessage } from '../util/errors.ts';
import { ForwardingStateManager } from './forwarding-state.ts';
import { IdleVms } from './idle-vms.ts';
import { ChainStateManager } from './state-manager.ts';
import './jumpdest-cache.ts';
import { attachTracer, txStartOf } from './tracing/bridge.ts';
import type { TxTracer } from './tracing/tracer.ts';
import type { DecodedEthTx } from './transactions.ts';
import { useSyncSteps } from './sync-steps.ts';
import { installWordOpcodes } from './word-opcodes.ts';
import { dropHardforkListeners, sharedCommon } from './simulation/common.ts';
import { type BlockEngine, blockEngine } from './block-engine.ts';
import { type NativeHost, type NativeSimulator, packBlock } from './simulation/native-binding.ts';
import { overlayHost, runTxOnRevm } from './revm-tx.ts';
import type { EthLog, TxAddresses } from './outcome.ts';

export type { EthLog, TxAddresses } from './outcome.ts';

export interface BlockEnv {
  height: bigint;
  /** seconds */
  timestamp: bigint;
  gasLimit: bigint;
  baseFee: bigint;
  /** EVM address of the fee collector: what COINBASE returns */
  coinbase: Uint8Array;
  /** PREVRANDAO (the header's mixHash); zero when not given. */
  prevRandao?: Uint8Array;
  /** App hash the block builds on (reported as the state root to ethereumjs). */
  parentAppHash: Uint8Array;
  /** Hash of an earlier block, for BLOCKHASH (undefined when unknown or out of range). */
  blockHash(height: bigint): Uint8Array | undefined;
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
  /**
   * Included but failed before execution (see `preExecutionFailure`): the nonce was consumed and
   * nothing ran; `error` holds the reason, status and gas used are 0.
   */
  failedBeforeExecution?: true;
  /** The addresses of the tx's call tree, when `ExecuteOptions.collectAddresses` asked for them. */
  addresses?: TxAddresses;
}

/**
 * A transaction that cannot be included at all (bad nonce, over the block's gas, fee cap below the base
 * fee…); one that only cannot pay is included, failed before execution (`preExecutionFailure`).
 */
export interface EthTxRejection {
  tx: DecodedEthTx;
  reason: string;
}

export interface ExecuteOptions {
  /** traces this transaction (see tracing/index.ts); without it no EVM hooks are registered */
  tracer?: TxTracer;
  /**
   * Collect the addresses of the tx's call tree for the address index (a block that will be stored):
   * one `beforeMessage` and one `newContract` listener, called per message, never per opcode.
   */
  collectAddresses?: boolean;
}

/**
 * A VM kept for the next block. Its state manager and BLOCKHASH source forward to its current
 * executor's (`slot`), so nothing of one block stays with it; a VM whose run threw is not kept (an
 * aborted run may leave EVM-side state behind, such as transient storage).
 */
class BlockVm {
  readonly vm: VM;
  /** The shared Common the VM was built for: its pool's key. */
  readonly common: Common;
  readonly slot: { state?: ChainStateManager; env?: BlockEnv };
  tainted = false;
  constructor(vm: VM, common: Common, slot: BlockVm['slot']) {
    this.vm = vm;
    this.common = common;
    this.slot = slot;
  }
}

async function buildBlockVm(common: Common): Promise<BlockVm> {
  const slot: BlockVm['slot'] = {};
  const blockchain = {
    getBlock: async (n: number) => {
      const hash = slot.env?.blockHash(BigInt(n));
      return { hash: () => hash ?? new Uint8Array(32) };
    },
    putBlock: async () => {},
    shallowCopy() {
      return this;
    },
  };
  const stateManager = new ForwardingStateManager(() => slot.state, 'EXECUTION_INTERNAL');
  const vm = await createVM({ common, stateManager, blockchain: blockchain as never });
  // The EVM subscribed to the chain's one Common: the listener kept every VM alive.
  dropHardforkListeners(common);
  // the simulator's fast paths, tested against ethereumjs's own steps (docs/adr/0023-block-execution-evm-fast-paths.md)
  installWordOpcodes(vm.evm as EVM);
  useSyncSteps(vm.evm);
  return new BlockVm(vm, common, slot);
}

const idleVms = new IdleVms(4, buildBlockVm);

export class BlockExecutor {
  readonly env: BlockEnv;
  readonly overlay: StateOverlay;
  private readonly pooled: BlockVm;
  private readonly vm: VM;
  private released = false;
  private readonly block: ReturnType<typeof createBlock>;
  private readonly evm: Evm;
  private readonly bank: Bank;
  private readonly auth: Auth;
  private gasUsed = 0n;
  /** revm, when it runs this block's untraced transactions */
  private readonly native: { sim: NativeSimulator; block: Uint8Array; host: NativeHost } | undefined;

  private constructor(
    env: BlockEnv,
    overlay: StateOverlay,
    pooled: BlockVm,
    block: ReturnType<typeof createBlock>,
    engine: BlockEngine,
  ) {
    this.env = env;
    this.overlay = overlay;
    this.pooled = pooled;
    this.vm = pooled.vm;
    this.block = block;
    this.evm = new Evm(overlay);
    this.bank = new Bank(overlay);
    this.auth = new Auth(overlay);
    if (engine.native) {
      const common = pooled.common;
      this.native = {
        sim: engine.native,
        block: packBlock({
          number: env.height,
          timestamp: env.timestamp,
          coinbase: env.coinbase,
          baseFee: env.baseFee,
          gasLimit: env.gasLimit,
          prevRandao: env.prevRandao ?? new Uint8Array(32),
          chainId: common.chainId(),
          spec: specOf(common.hardfork()),
        }),
        host: overlayHost(overlay, env.blockHash),
      };
    }
  }

  /** The EVM that runs this block's untraced transactions. */
  get engine(): 'revm' | 'ethereumjs' {
    return this.native ? 'revm' : 'ethereumjs';
  }

  /** `engine`: the EVM for untraced transactions (the process's unless given). */
  static async create(
    chainCommon: Common,
    env: BlockEnv,
    overlay: StateOverlay,
    engine: BlockEngine = blockEngine(),
  ): Promise<BlockExecutor> {
    // each VM, EVM and header would otherwise merge its parameter set into the Common again (a JSON
    // deep copy and a params-cache rebuild apiece)
    const common = sharedCommon(chainCommon);
    const pooled = await idleVms.take(common);
    pooled.slot.state = new ChainStateManager(overlay, env.parentAppHash);
    pooled.slot.env = env;
    const block = createBlock(
      {
        header: {
          number: env.height,
          timestamp: env.timestamp,
          gasLimit: env.gasLimit,
          baseFeePerGas: env.baseFee,
          coinbase: new Address(env.coinbase),
          difficulty: 0n,
          mixHash: env.prevRandao ?? new Uint8Array(32),
          parentBeaconBlockRoot: new Uint8Array(32),
        },
      },
      { common, setHardfork: false, skipConsensusFormatValidation: true },
    );
    return new BlockExecutor(env, overlay, pooled, block, engine);
  }

  /** Gives the VM back for the next block; the executor runs nothing after this. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const p = this.pooled;
    p.slot.state = undefined;
    p.slot.env = undefined;
    idleVms.give(p.common, p);
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
    if (this.released)
      throw new ChainError('EXECUTION_INTERNAL', 'a block executor was used after its VM was released');
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
    const collector = opts?.collectAddresses ? new AddressCollector(this.vm.evm as EVM) : undefined;
    // the prestate is read before the sender's first-transaction association moves balances
    await trace?.start();
    this.overlay.checkpoint();
    try {
      this.associateSender(tx);
      const unpaid = this.preExecutionFailure(tx);
      if (unpaid !== undefined) {
        // the nonce is consumed (the sender's next tx may follow), nothing else: no gas, no value, no code
        this.evm.setNonce(tx.sender, tx.nonce + 1n);
        this.overlay.commit();
        return {
          tx,
          status: 0,
          gasUsed: 0n,
          cumulativeGasUsed: this.gasUsed,
          effectiveGasPrice: effectivePrice(tx, this.env.baseFee),
          contractAddress: null,
          logs: [],
          error: unpaid,
          returnData: new Uint8Array(0),
          failedBeforeExecution: true,
          ...(collector && { addresses: { created: [], internal: [] } }),
        };
      }
      if (this.native && !opts?.tracer) return this.executeOnRevm(tx, opts?.collectAddresses === true);
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
        ...(collector && { addresses: collector.result(exec.selfdestruct) }),
      };
    } catch (err) {
      this.pooled.tainted = true;
      this.overlay.revert();
      // an aborted trace (timeout, abort()) is the caller's error, not a property of the transaction
      const stop = opts?.tracer?.abortReason;
      if (stop) throw stop;
      // a forked chain's remote that did not answer says nothing about the tx: the block fails
      // (and is made again), rather than leaving out a tx that would have run
      if (err instanceof ChainError && err.code === 'FORK_REMOTE_FAILED') throw err;
      return { tx, reason: errorMessage(err) };
    } finally {
      trace?.detach();
      collector?.detach();
    }
  }

  /** The untraced path on revm: as runTx, from inside execute's checkpoint (which this closes). */
  private executeOnRevm(tx: DecodedEthTx, collect: boolean): EthTxOutcome | EthTxRejection {
    const n = this.native!;
    const r = runTxOnRevm(n.sim, tx, n.block, this.overlay, n.host, collect);
    if (typeof r === 'string') {
      this.overlay.revert();
      return { tx, reason: r };
    }
    const effectiveGasPrice = effectivePrice(tx, this.env.baseFee);
    this.bank.addWei(this.evm.balanceAddressOf(this.env.coinbase), r.gasUsed * this.env.baseFee);
    this.overlay.commit();
    this.gasUsed += r.gasUsed;
    return {
      tx,
      status: r.status,
      gasUsed: r.gasUsed,
      cumulativeGasUsed: this.gasUsed,
      effectiveGasPrice,
      contractAddress: r.createdAddress,
      logs: r.logs,
      error: r.error,
      returnData: r.output,
      ...(r.addresses && { addresses: r.addresses }),
    };
  }

  /**
   * The chain rule for a tx the block includes although it cannot pay (consensus-critical;
   * docs/operators/transactions.md). In a CometBFT chain the proposer fixes a block's txs before they
   * run, so a tx whose up-front cost an earlier tx of the same block spent is delivered and fails
   * there: it is included, its nonce consumed, nothing executed (the reference chain of the legacy
   * API does the same). Such a tx passes every check runTx makes before its funds check, in runTx's order
   * (intrinsic gas, fee cap ≥ base fee, sender an EOA or EIP-7702-delegated), has exactly the
   * sender's nonce, and holds less than gas limit × fee cap + value (geth's and runTx's funds check
   * for every tx type; the balance is read after the first-tx association, as runTx would read it).
   * Returns geth's message for it, or undefined: then runTx runs, and whatever it refuses (a wrong
   * nonce above all) is left out of the block as before. The block gas check came first, in execute.
   */
  private preExecutionFailure(tx: DecodedEthTx): string | undefined {
    if (tx.gasLimit < tx.intrinsicGas || tx.maxFeePerGas < this.env.baseFee) return undefined;
    if (this.evm.nonce(tx.sender) !== tx.nonce) return undefined;
    if (this.evm.hasCode(tx.sender) && !isDelegation(this.evm.code(tx.sender))) return undefined;
    const have = this.bank.wei(this.evm.balanceAddressOf(tx.sender));
    const want = tx.gasLimit * tx.maxFeePerGas + tx.value;
    if (have >= want) return undefined;
    return `insufficient funds for gas * price + value: address ${toChecksumAddress(tx.sender)} have ${have} want ${want}`;
  }

  /**
   * First transaction of a key: link its addresses, move the cast's balance, record the key. An
   * impersonated tx (a dev chain's) has no key to link: its sender stays on its cast.
   */
  private associateSender(tx: DecodedEthTx): void {
    if (tx.impersonated || this.evm.cosmosAddressOf(tx.sender)) return;
    const publicKey = secp256k1.Point.fromBytes(concatPrefix(tx.tx.getSenderPublicKey())).toBytes(true);
    const cosmos = ripemd160(sha256(publicKey));
    this.evm.associate(tx.sender, cosmos);
    this.bank.transferWei(tx.sender, cosmos, this.bank.wei(tx.sender));
    const account = this.auth.ensureAccount(cosmos);
    if (!account.pubKey) this.auth.setAccount({ ...account, pubKey: publicKey });
  }
}

interface MessageLike {
  depth: number;
  caller: Address;
  to?: Address;
  /** the code run, when it is not `to`'s (DELEGATECALL, CALLCODE); the `codeAddress` getter throws for a creation */
  _codeAddress?: Address;
}

/**
 * The addresses of one tx's call tree, from the EVM's `beforeMessage` (every CALL, CALLCODE,
 * DELEGATECALL, STATICCALL, CREATE and CREATE2) and `newContract` events: a listener runs per message,
 * so untraced execution keeps its per-opcode fast paths. Listeners take one argument, so the EVM
 * calls them without awaiting.
 */
class AddressCollector {
  private readonly evm: EVM;
  private readonly seen = new Map<string, Uint8Array>();
  private readonly created: Uint8Array[] = [];
  private readonly onMessage = (m: MessageLike) => {
    if (m.depth === 0) return;
    this.note(m.caller.bytes);
    if (m.to) this.note(m.to.bytes);
    if (m._codeAddress) this.note(m._codeAddress.bytes);
  };
  private readonly onContract = (e: { address: Address }) => {
    this.created.push(e.address.bytes);
  };

  constructor(evm: EVM) {
    this.evm = evm;
    evm.events!.on('beforeMessage', this.onMessage as never);
    evm.events!.on('newContract', this.onContract as never);
  }

  private note(address: Uint8Array): void {
    const k = Buffer.from(address.buffer, address.byteOffset, 20).toString('latin1');
    if (!this.seen.has(k)) this.seen.set(k, address);
  }

  /** `selfdestructs`: the run's contract → beneficiary map (hex), which holds only kept ones. */
  result(selfdestructs: Map<string, string> | undefined): TxAddresses {
    for (const beneficiary of selfdestructs?.values() ?? [])
      this.note(hexToBytes(beneficiary as `0x${string}`));
    return { created: this.created, internal: [...this.seen.values()] };
  }

  detach(): void {
    this.evm.events!.off('beforeMessage', this.onMessage as never);
    this.evm.events!.off('newContract', this.onContract as never);
  }
}

/** EIP-7702: the code of a delegated EOA is 0xef0100 ‖ address. */
function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

/** What the tx would have paid per gas: the fee cap, or base fee + tip when that is lower. */
function effectivePrice(tx: DecodedEthTx, baseFee: bigint): bigint {
  const capped = baseFee + tx.maxPriorityFeePerGas;
  return capped < tx.maxFeePerGas ? capped : tx.maxFeePerGas;
}

/** ethereumjs returns the 64-byte key without the 0x04 prefix of the uncompressed SEC1 form. */
function concatPrefix(key64: Uint8Array): Uint8Array {
  const out = new Uint8Array(65);
  out[0] = 4;
  out.set(key64, 1);
  return out;
}

function specOf(hardfork: string): 'prague' | 'osaka' | 'cancun' {
  if (hardfork === 'prague' || hardfork === 'osaka' || hardfork === 'cancun') return hardfork;
  throw new ChainError('EXECUTION_INTERNAL', `revm runs no blocks of hardfork ${hardfork}`);
}

export function isRejection(r: EthTxOutcome | EthTxRejection): r is EthTxRejection {
  return 'reason' in r;
}
