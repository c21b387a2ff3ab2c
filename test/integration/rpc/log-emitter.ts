/** A node with a contract that emits as many LOG0s as a tx asks, for tests of the log limits. */
import assert from 'node:assert/strict';
import { getCreateAddress } from 'ethers';
import { CHAIN_ID, GWEI, result, rpcNode, waitReceipt, wallets } from './rpc-helpers.ts';

/**
 * Runtime: n = calldata[0..32]; while (n != 0) { LOG0(0, 0); n-- }.
 *   00 PUSH1 0  CALLDATALOAD | 03 JUMPDEST DUP1 ISZERO PUSH1 0x15 JUMPI | 09 PUSH1 0 PUSH1 0 LOG0
 *   0e PUSH1 1 SWAP1 SUB PUSH1 3 JUMP | 15 JUMPDEST STOP
 * Init code copies the 23-byte runtime (at offset 11) to memory and returns it.
 */
const RUNTIME = '6000355b801560155760006000a0600190036003565b00';
const INIT = '0x6017' + '80' + '600b' + '6000' + '39' + '6000' + 'f3' + RUNTIME;
const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, chainId: CHAIN_ID, type: 2 };
const count = (n: number) => '0x' + n.toString(16).padStart(64, '0');

export async function emitterNode(t: { after(fn: () => unknown): void }, flags: Record<string, string> = {}) {
  const n = await rpcNode(t, flags);
  const call = (method: string, ...params: unknown[]) => result(n.url, method, params);
  const [owner] = wallets;
  let nonce = 0;
  const send = async (tx: object) =>
    call('eth_sendRawTransaction', await owner.signTransaction({ ...fee, nonce: nonce++, ...tx }));
  await waitReceipt(n.url, await send({ gasLimit: 200_000, data: INIT }));
  const emitter = getCreateAddress({ from: owner.address, nonce: 0 }).toLowerCase();
  assert.equal(await call('eth_getCode', emitter, 'latest'), '0x' + RUNTIME);
  /** Sends a tx emitting `logs` LOG0s; resolves to its receipt. */
  const emit = async (logs: number) =>
    waitReceipt(n.url, await send({ to: emitter, gasLimit: 100_000 + logs * 500, data: count(logs) }));
  return { ...n, call, emit, emitter };
}
