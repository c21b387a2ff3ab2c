/**
 * An engine runs one state-test case on a fresh state and says what it got: the post-state root, the
 * logs hash and the gas used, or that it rejected the transaction. Every engine is checked against
 * the test's expected root and logs hash (runner.ts), so a new engine (revm) plugs in by implementing
 * `Engine`.
 *
 * The ethereumjs engines share `runOnEthereumjs`: the pre-state in a MerkleStateManager (its root is
 * the Ethereum state root), the block env as a block header, the matrix's transaction built and
 * signed with the test's key, and `runTx` with the fork's rules (the touched-and-empty accounts,
 * coinbase included, are removed by runTx's journal cleanup from Spurious Dragon on).
 */
import { createBlock } from '@ethereumjs/block';
import { Common, type CustomCrypto, Hardfork, Mainnet } from '@ethereumjs/common';
import { RLP } from '@ethereumjs/rlp';
import { MerkleStateManager } from '@ethereumjs/statemanager';
import {
  createAccessList2930Tx,
  createBlob4844Tx,
  createFeeMarket1559Tx,
  createLegacyTx,
  type TypedTransaction,
} from '@ethereumjs/tx';
import {
  Address,
  bytesToHex,
  createAccount,
  hexToBytes,
  setLengthLeft,
  unpadBytes,
  type PrefixedHexString,
} from '@ethereumjs/util';
import { createVM, runTx, type VM } from '@ethereumjs/vm';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { lazyKzg } from '../../../src/execution/kzg.ts';
import type { Env, StateCase } from './corpus.ts';

export interface EngineResult {
  stateRoot: string;
  logsHash: string;
  gasUsed: bigint;
  /** Why the transaction was rejected (not included); absent when it ran. */
  rejected?: string;
}

export interface Engine {
  readonly name: string;
  run(c: StateCase): Promise<EngineResult>;
}

/** The fork names of the test files and ethereumjs's hardforks. */
const FORKS: Record<string, Hardfork> = {
  Frontier: Hardfork.Chainstart,
  Homestead: Hardfork.Homestead,
  EIP150: Hardfork.TangerineWhistle,
  EIP158: Hardfork.SpuriousDragon,
  Byzantium: Hardfork.Byzantium,
  Constantinople: Hardfork.Constantinople,
  ConstantinopleFix: Hardfork.Petersburg,
  Istanbul: Hardfork.Istanbul,
  Berlin: Hardfork.Berlin,
  London: Hardfork.London,
  Paris: Hardfork.Paris,
  Shanghai: Hardfork.Shanghai,
  Cancun: Hardfork.Cancun,
  Prague: Hardfork.Prague,
};

export function hardforkOf(fork: string): Hardfork {
  const hf = FORKS[fork];
  if (hf === undefined) throw new Error(`state test fork ${fork} has no ethereumjs hardfork`);
  return hf;
}

export function mainnetCommon(fork: string, customCrypto: CustomCrypto = { kzg: lazyKzg }): Common {
  return new Common({ chain: Mainnet, hardfork: hardforkOf(fork), customCrypto });
}

/** keccak256 of the RLP of the logs: the `logs` of a post entry. */
export function logsHash(logs: readonly unknown[]): string {
  return bytesToHex(keccak_256(RLP.encode(logs as Uint8Array[])));
}

const hex = (s: string): PrefixedHexString => (s.startsWith('0x') ? s : `0x${s}`) as PrefixedHexString;
const big = (s: string | undefined): bigint | undefined => (s === undefined ? undefined : BigInt(s));

/**
 * BLOCKHASH in state tests, as the filling clients answer it: keccak256 of the block number written
 * in decimal (there is no chain behind the env).
 */
export function testBlockHash(n: number): Uint8Array {
  return keccak_256(new TextEncoder().encode(String(n)));
}

const blockchain = {
  getBlock: async (n: number) => ({ hash: () => testBlockHash(n) }),
  putBlock: async () => {},
  shallowCopy() {
    return this;
  },
};

export function buildTx(c: StateCase, common: Common): TypedTransaction {
  const t = c.tx;
  const base = {
    nonce: big(t.nonce),
    gasLimit: big(t.gasLimit),
    to: t.to === '' ? undefined : hex(t.to),
    value: big(t.value),
    data: hex(t.data),
  };
  const accessList = t.accessList?.map((a) => ({
    address: hex(a.address),
    storageKeys: a.storageKeys.map(hex),
  }));
  let tx: TypedTransaction;
  if (t.blobVersionedHashes !== undefined) {
    tx = createBlob4844Tx(
      {
        ...base,
        chainId: 1n,
        accessList,
        maxFeePerGas: big(t.maxFeePerGas),
        maxPriorityFeePerGas: big(t.maxPriorityFeePerGas),
        maxFeePerBlobGas: big(t.maxFeePerBlobGas),
        blobVersionedHashes: t.blobVersionedHashes.map(hex),
      },
      { common },
    );
  } else if (t.maxFeePerGas !== undefined) {
    tx = createFeeMarket1559Tx(
      {
        ...base,
        chainId: 1n,
        accessList,
        maxFeePerGas: big(t.maxFeePerGas),
        maxPriorityFeePerGas: big(t.maxPriorityFeePerGas),
      },
      { common },
    );
  } else if (accessList !== undefined) {
    tx = createAccessList2930Tx({ ...base, chainId: 1n, accessList, gasPrice: big(t.gasPrice) }, { common });
  } else {
    tx = createLegacyTx({ ...base, gasPrice: big(t.gasPrice) }, { common });
  }
  return tx.sign(hexToBytes(hex(t.secretKey)));
}

function buildBlock(env: Env, common: Common) {
  const postMerge = common.gteHardfork(Hardfork.Paris);
  return createBlock(
    {
      header: {
        number: BigInt(env.currentNumber),
        timestamp: BigInt(env.currentTimestamp),
        gasLimit: BigInt(env.currentGasLimit),
        coinbase: new Address(setLengthLeft(hexToBytes(hex(env.currentCoinbase)), 20)),
        difficulty: postMerge ? 0n : BigInt(env.currentDifficulty),
        // the filling clients' default when an env from before London leaves it out
        baseFeePerGas: common.gteHardfork(Hardfork.London) ? BigInt(env.currentBaseFee ?? '0x0a') : undefined,
        mixHash:
          postMerge && env.currentRandom !== undefined
            ? setLengthLeft(hexToBytes(hex(env.currentRandom)), 32)
            : undefined,
        excessBlobGas: common.gteHardfork(Hardfork.Cancun)
          ? BigInt(env.currentExcessBlobGas ?? '0x00')
          : undefined,
      },
    },
    { common, skipConsensusFormatValidation: true },
  );
}

export async function putPreState(sm: MerkleStateManager, c: StateCase): Promise<void> {
  await sm.checkpoint();
  for (const [addr, a] of Object.entries(c.pre)) {
    const address = new Address(hexToBytes(hex(addr)));
    await sm.putAccount(address, createAccount({ nonce: BigInt(a.nonce), balance: BigInt(a.balance) }));
    const code = hexToBytes(hex(a.code));
    if (code.length > 0) await sm.putCode(address, code);
    for (const [k, v] of Object.entries(a.storage)) {
      const value = unpadBytes(hexToBytes(hex(v)));
      if (value.length === 0) continue;
      await sm.putStorage(address, setLengthLeft(hexToBytes(hex(k)), 32), value);
    }
  }
  await sm.commit();
}

export interface EthereumjsSetup {
  common(fork: string): Common;
  /** Changes the fresh VM before the case runs (the chaind fast paths). */
  prepare?(vm: VM): void;
}

/** Runs one case on a fresh ethereumjs VM over a fresh MerkleStateManager. */
export async function runOnEthereumjs(c: StateCase, setup: EthereumjsSetup): Promise<EngineResult> {
  const common = setup.common(c.fork);
  const stateManager = new MerkleStateManager({ common });
  await putPreState(stateManager, c);
  const vm = await createVM({ common, stateManager, blockchain: blockchain as never });
  setup.prepare?.(vm);
  const root = async () => bytesToHex(await vm.stateManager.getStateRoot());
  let tx: TypedTransaction;
  try {
    tx = buildTx(c, common);
  } catch (e) {
    return { stateRoot: await root(), logsHash: logsHash([]), gasUsed: 0n, rejected: `tx: ${message(e)}` };
  }
  if (!tx.isValid()) {
    return {
      stateRoot: await root(),
      logsHash: logsHash([]),
      gasUsed: 0n,
      rejected: tx.getValidationErrors().join('; '),
    };
  }
  try {
    const r = await runTx(vm, { tx, block: buildBlock(c.env, common) });
    return { stateRoot: await root(), logsHash: logsHash(r.execResult.logs ?? []), gasUsed: r.totalGasSpent };
  } catch (e) {
    return { stateRoot: await root(), logsHash: logsHash([]), gasUsed: 0n, rejected: message(e) };
  }
}

function message(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);
}

let patchedProcess: string | undefined;

/**
 * Marks the process as running patched ethereumjs code for every EVM (a prototype patch that cannot
 * be scoped to one VM): from then on the stock engine refuses to run, rather than report patched
 * results as stock ones.
 */
export function markProcessPatched(by: string): void {
  patchedProcess ??= by;
}

/** Stock ethereumjs 10.1.x, as published. */
export const stockEngine: Engine = {
  name: 'ethereumjs',
  run(c) {
    if (patchedProcess !== undefined)
      throw new Error(
        `the stock engine cannot run after ${patchedProcess} patched this process's ethereumjs`,
      );
    return runOnEthereumjs(c, { common: (fork) => mainnetCommon(fork) });
  },
};
