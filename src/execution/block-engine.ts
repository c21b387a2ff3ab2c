/**
 * Which EVM runs blocks: revm (the native addon) when it is built and not refused by the
 * `[evm] block_engine` setting, else stock ethereumjs. Both give the same receipts, state changes
 * and app hash (docs/evm-equivalence.md), so nodes of one network may differ in this. Chosen once
 * per process, before the first block; tracing always runs on ethereumjs.
 */
import { nativeSimulator, type NativeSimulator } from './simulation/native-binding.ts';

/** How a node that runs blocks on ethereumjs gets revm. */
export const REVM_HOWTO =
  'install Rust (https://rustup.rs), then `npm run build:native-sim` (npm ci builds it when cargo is present) and restart';

export type BlockEngineSetting = 'auto' | 'revm' | 'ethereumjs';

export interface BlockEngine {
  name: 'revm' | 'ethereumjs';
  /** why ethereumjs runs blocks (the addon is not built, or the setting asks for it) */
  reason?: string;
  native?: NativeSimulator;
}

let chosen: BlockEngine | undefined;

/**
 * Chooses the engine for this process. `revm` insists on the addon (an error says why it cannot
 * load); `auto` takes it when it loads. The environment's CHAIND_BLOCK_ENGINE, when set, is the
 * default for `auto` (the test suite runs once per engine through it).
 */
export function chooseBlockEngine(setting: BlockEngineSetting = 'auto'): BlockEngine {
  const env = process.env.CHAIND_BLOCK_ENGINE;
  const wanted = setting === 'auto' && (env === 'revm' || env === 'ethereumjs') ? env : setting;
  if (wanted === 'ethereumjs') {
    chosen = {
      name: 'ethereumjs',
      reason:
        setting === 'ethereumjs' ? '[evm] block_engine = "ethereumjs"' : 'CHAIND_BLOCK_ENGINE=ethereumjs',
    };
    return chosen;
  }
  const native = nativeSimulator();
  if (typeof native === 'string') {
    if (wanted === 'revm') throw new Error(`[evm] block_engine = "revm" but the native EVM ${native}`);
    chosen = { name: 'ethereumjs', reason: `the native EVM is ${native}` };
    return chosen;
  }
  chosen = { name: 'revm', native };
  return chosen;
}

/** The engine chosen for this process (chosen with the defaults on first use). */
export function blockEngine(): BlockEngine {
  return chosen ?? chooseBlockEngine();
}
