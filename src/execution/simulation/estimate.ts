/**
 * eth_estimateGas and eth_createAccessList on a Simulation, as geth computes them
 * (eth/gasestimator.Estimate and internal/ethapi.AccessList).
 */
import { bigIntToUnpaddedBytes, generateAddress } from '@ethereumjs/util';
import { compareBytes, equalBytes, toHex } from '../../primitives/bytes.ts';
import type { NativeSimulator } from './native-binding.ts';
import {
  SimulationError,
  type AccessListItem,
  type CallMessage,
  type RunResult,
  type Simulation,
} from './simulate.ts';

export type EstimateResult =
  | { status: 'success'; gas: bigint }
  | { status: 'revert'; returnData: Uint8Array }
  | { status: 'failure'; error: string };

const TX_GAS = 21_000n;
const CALL_STIPEND = 2_300n;

/**
 * Runs at `gas`: failed (maybe for lack of gas) or not; other pre-execution errors propagate. On the
 * native simulator when given and the message is one it runs exactly (`Simulation.callNative`): it
 * succeeds or fails at a gas limit as the JS EVM's run does, and its gas used (before refunds) is
 * the JS run's gas used plus refund, so the search takes the same steps to the same minimum.
 */
async function attempt(
  sim: Simulation,
  msg: CallMessage,
  gas: bigint,
  native?: NativeSimulator,
): Promise<RunResult | undefined> {
  try {
    const fast = native && (await sim.callNative(native, msg, gas));
    return fast || (await sim.run(msg, gas));
  } catch (err) {
    // Too little gas to even start: the search raises the limit.
    if (err instanceof SimulationError && err.reason === 'intrinsic_gas') return undefined;
    throw err;
  }
}

/**
 * The least gas limit with which `msg` succeeds: the upper bound is the call's gas (when at least
 * 21000), else the block gas limit, lowered to what the sender's balance pays for at the fee cap and
 * to the gas cap; a first run at the bound decides success at all; then the optimistic guess
 * (gas used + refund + call stipend) × 64/63 (the 63/64 rule leaves that much for nested calls), then
 * bisection skewed low. Unlike geth no error ratio is allowed: the answer is the exact minimum.
 */
export async function estimateGas(
  sim: Simulation,
  msg: CallMessage,
  native?: NativeSimulator,
): Promise<EstimateResult> {
  let hi = msg.gas !== undefined && msg.gas >= TX_GAS ? msg.gas : sim.env.gasLimit;
  const feeCap = msg.maxFeePerGas ?? msg.gasPrice ?? 0n;
  if (feeCap !== 0n) {
    let available = await sim.balanceOf(msg.from ?? new Uint8Array(20));
    const value = msg.value ?? 0n;
    if (value >= available) throw new SimulationError('funds', 'insufficient funds for transfer');
    available -= value;
    const allowance = available / feeCap;
    if (hi > allowance) hi = allowance;
  }
  if (hi > sim.gasCap) hi = sim.gasCap;

  // A plain transfer: 21000 if it works (still run: access lists and the like cost more).
  if ((msg.data ?? new Uint8Array(0)).length === 0 && msg.to && (await sim.codeSize(msg.to)) === 0) {
    // any failure here (even an unfundable one) is left to the full run below to report
    const r = await attempt(sim, msg, TX_GAS, native).catch(() => undefined);
    if (r?.status === 'success') return { status: 'success', gas: TX_GAS };
  }
  const first = await attempt(sim, msg, hi, native);
  if (first === undefined || first.status === 'failure') {
    if (first?.status === 'failure' && first.error !== 'out of gas') return first;
    return { status: 'failure', error: `gas required exceeds allowance (${hi})` };
  }
  if (first.status === 'revert') return { status: 'revert', returnData: first.returnData };

  let lo = first.gasUsed - 1n;
  const optimistic = ((first.gasUsed + first.refund + CALL_STIPEND) * 64n) / 63n;
  if (optimistic < hi) {
    if ((await attempt(sim, msg, optimistic, native))?.status === 'success') hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi) {
    let mid = (hi + lo) / 2n;
    // most txs need little more than they use: bisect nearer the low end
    if (mid > lo * 2n) mid = lo * 2n;
    if ((await attempt(sim, msg, mid, native))?.status === 'success') hi = mid;
    else lo = mid;
  }
  return { status: 'success', gas: hi };
}

export interface AccessListResult {
  accessList: AccessListItem[];
  gasUsed: bigint;
  /** The EVM error of the last run ("execution reverted", "out of gas", ...), if it failed. */
  error?: string;
}

/** Precompiles 0x01..0x11 (through Prague's BLS ones) are warm anyway: never listed. */
function isPrecompile(a: Uint8Array): boolean {
  for (let i = 0; i < 19; i++) if (a[i] !== 0) return false;
  return a[19] >= 1 && a[19] <= 0x11;
}

/**
 * The access list of `msg`: run it reporting what it touched, run again with that list (warm
 * accesses can change the path), until the list is stable. The sender, the recipient without slots
 * and precompiles are left out, as geth's access-list tracer does; slots are sorted.
 */
export async function createAccessList(sim: Simulation, msg: CallMessage): Promise<AccessListResult> {
  const from = msg.from ?? new Uint8Array(20);
  const gas = sim.callGas(msg);
  // a creation's recipient is the address it creates (geth: crypto.CreateAddress(from, nonce))
  const to = msg.to ?? generateAddress(from, bigIntToUnpaddedBytes(await sim.nonceOf(from)));
  let list = normalize(msg.accessList ?? [], from, to);
  // geth: the list changes the gas, the gas can change the path; a fixed point comes quickly
  for (let round = 0; ; round++) {
    const r = await sim.run({ ...msg, accessList: list }, gas, true);
    const next = normalize(merge(list, r.accessList ?? []), from, to);
    if (sameList(list, next) || round >= 8) {
      return {
        accessList: list,
        gasUsed: r.gasUsed,
        ...(r.status === 'revert'
          ? { error: 'execution reverted' }
          : r.status === 'failure'
            ? { error: r.error }
            : {}),
      };
    }
    list = next;
  }
}

function merge(a: AccessListItem[], b: AccessListItem[]): AccessListItem[] {
  const out = new Map<string, { address: Uint8Array; keys: Map<string, Uint8Array> }>();
  for (const e of [...a, ...b]) {
    const id = toHex(e.address);
    let entry = out.get(id);
    if (!entry) out.set(id, (entry = { address: e.address, keys: new Map() }));
    for (const k of e.storageKeys) entry.keys.set(toHex(k), k);
  }
  return [...out.values()].map((e) => ({ address: e.address, storageKeys: [...e.keys.values()] }));
}

function normalize(list: AccessListItem[], from: Uint8Array, to: Uint8Array): AccessListItem[] {
  return merge(list, [])
    .filter((e) => !isPrecompile(e.address) && !equalBytes(e.address, from))
    .filter((e) => !(equalBytes(e.address, to) && e.storageKeys.length === 0))
    .map((e) => ({ address: e.address, storageKeys: e.storageKeys.sort(compareBytes) }));
}

function sameList(a: AccessListItem[], b: AccessListItem[]): boolean {
  const key = (l: AccessListItem[]) =>
    l
      .map((e) => toHex(e.address) + ':' + e.storageKeys.map(toHex).join(','))
      .sort()
      .join(';');
  return key(a) === key(b);
}
