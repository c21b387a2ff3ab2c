/**
 * VMs kept for reuse across simulations. Building a VM (EVM, opcode table, precompiles, journal) is
 * about as costly as running a cheap call, and a VM is built to run one transaction after another:
 * runTx starts by cleaning the EVM journal and cleans it again in its `finally`. A pooled VM runs
 * over a state manager that forwards to the current simulation's state, and its deadline and block
 * hashes are the current simulation's; between owners it holds nothing. A VM whose run threw is not
 * returned (an aborted run may leave EVM-side state, such as transient storage, behind).
 */
import type { Common } from '@ethereumjs/common';
import type { EVM } from '@ethereumjs/evm';
import { createVM, type VM } from '@ethereumjs/vm';
import { ChainError } from '../../util/errors.ts';
import { ForwardingStateManager } from '../forwarding-state.ts';
import { IdleVms } from '../idle-vms.ts';
import type { BlockEnv } from '../block-executor.ts';
import { dropHardforkListeners } from './common.ts';
import { type Deadline, deadlineOpcodes } from './deadline.ts';
import type { SimulationStateManager } from './state.ts';
// JUMPDEST analysis once per (EVM, code array): simulations read code through the per-version read
// cache (state.ts), so a contract's code is the same array from one call to the next.
import '../jumpdest-cache.ts';
import { useSyncSteps } from '../sync-steps.ts';
import { installWordOpcodes } from '../word-opcodes.ts';

/** What a pooled VM works for right now. */
export interface VmOwner {
  state: SimulationStateManager;
  deadline: Deadline;
  env: BlockEnv;
}

export class PooledVm {
  readonly vm: VM;
  private readonly slot: { owner?: VmOwner };
  /** A run threw: the VM is dropped instead of returned. */
  tainted = false;
  constructor(vm: VM, slot: { owner?: VmOwner }) {
    this.vm = vm;
    this.slot = slot;
  }
  set owner(o: VmOwner | undefined) {
    this.slot.owner = o;
  }
}

async function build(common: Common): Promise<PooledVm> {
  const slot: { owner?: VmOwner } = {};
  const blockchain = {
    getBlock: async (n: number) => ({
      hash: () => slot.owner?.env.blockHash(BigInt(n)) ?? new Uint8Array(32),
    }),
    putBlock: async () => {},
    shallowCopy() {
      return this;
    },
  };
  const vm = await createVM({
    common,
    // the VM's only state manager: every call goes to the owner's
    stateManager: new ForwardingStateManager(() => slot.owner?.state, 'SIMULATION_INTERNAL'),
    blockchain: blockchain as never,
    evmOpts: { customOpcodes: deadlineOpcodes(common, () => slot.owner?.deadline) },
  });
  dropHardforkListeners(common);
  installWordOpcodes(vm.evm as EVM);
  useSyncSteps(vm.evm);
  const events = vm.evm.events;
  if (!events) throw new ChainError('UNSUPPORTED', 'the EVM has no event emitter');
  // the first message starts the EVM: the sender's EIP-3607 check is behind (see hideCodeOf)
  events.on('beforeMessage', () => slot.owner?.state.hideCodeOf(undefined));
  return new PooledVm(vm, slot);
}

const idle = new IdleVms(16, build);

/** A VM of the shared simulation Common, owned by `owner` until released. */
export async function acquireVm(common: Common, owner: VmOwner): Promise<PooledVm> {
  const p = await idle.take(common);
  p.owner = owner;
  return p;
}

export function releaseVm(common: Common, p: PooledVm): void {
  p.owner = undefined;
  idle.give(common, p);
}
