/**
 * Fills a spawned node's chain with logs over plain JSON-RPC, for the tests and benchmarks that need
 * large eth_getLogs answers: each transaction is a contract creation whose init code emits `n` LOG1s
 * of 32 bytes of data (about 460 bytes of JSON per log in an answer) and deploys nothing.
 */
import { Wallet } from 'ethers';
import { post } from './abuse.ts';

/** chaind dev's first prefunded key (Hardhat's account #0). */
export const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const GWEI = 10n ** 9n;

/**
 * PUSH2 n | 03 JUMPDEST DUP1 PUSH1 32 PUSH1 0 LOG1 (topic: the counter) PUSH1 1 SWAP1 SUB DUP1
 * PUSH1 3 JUMPI | STOP
 */
export function logLoopInitCode(n: number): string {
  if (n < 1 || n > 0xffff) throw new Error(`logs per transaction: 1..65535, got ${n}`);
  return (
    '0x61' +
    n.toString(16).padStart(4, '0') +
    '5b' +
    '80' +
    '6020' +
    '6000' +
    'a1' +
    '6001' +
    '90' +
    '03' +
    '80' +
    '6003' +
    '57' +
    '00'
  );
}

export async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const r = await post(url, { jsonrpc: '2.0', id: 1, method, params });
  if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.result;
}

/**
 * Sends `txs` transactions of `logsPerTx` logs each from the dev key and waits until they are mined
 * (each has gas for its logs: it cannot fail); resolves to the first and the last height holding them.
 */
export async function fillLogs(
  url: string,
  txs: number,
  logsPerTx: number,
): Promise<{ from: number; to: number }> {
  const wallet = new Wallet(DEV_KEY);
  const chainId = BigInt(await rpc(url, 'eth_chainId'));
  let nonce = Number(await rpc(url, 'eth_getTransactionCount', [wallet.address, 'pending']));
  const hashes: string[] = [];
  for (let i = 0; i < txs; i++) {
    const raw = await wallet.signTransaction({
      chainId,
      type: 2,
      nonce: nonce++,
      maxFeePerGas: 100n * GWEI,
      maxPriorityFeePerGas: GWEI,
      gasLimit: 60_000 + logsPerTx * 1_100,
      data: logLoopInitCode(logsPerTx),
    });
    hashes.push(await rpc(url, 'eth_sendRawTransaction', [raw]));
  }
  const heights: number[] = [];
  // by the tx, not its receipt: a receipt of thousands of logs may pass the node's answer budget
  for (const h of hashes) {
    for (;;) {
      const tx = await rpc(url, 'eth_getTransactionByHash', [h]);
      if (tx?.blockNumber) {
        heights.push(Number(tx.blockNumber));
        break;
      }
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  return { from: Math.min(...heights), to: Math.max(...heights) };
}
