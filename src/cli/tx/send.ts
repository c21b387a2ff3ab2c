/**
 * One transaction from build to block: the chain ID and the signer's account number and sequence
 * read from the node, gas given or simulated, the fee at the gas price, the signed tx broadcast
 * (`broadcast_tx_sync`), then `/tx` polled until a block holds it. A refusal at CheckTx or a failure
 * in the block ends it with the node's own code and log.
 */
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { type Account, toAccAddress } from '../../crypto/accounts.ts';
import { ChainError } from '../../util/errors.ts';
import { feeFor } from './amounts.ts';
import type { IncludedTx, NodeClient, TxOutcome } from './node-client.ts';
import { signTx, unsignedForSimulation } from './sign.ts';

export interface SendOptions {
  node: NodeClient;
  signer: Account;
  messages: Any[];
  memo?: string;
  /** a gas limit, or simulate and multiply by `gasAdjustment` */
  gas: bigint | 'auto';
  gasAdjustment: number;
  /** uchain per unit of gas, as LegacyDec atomics */
  gasPrice: bigint;
  /** how long to wait for a block to hold the tx */
  timeoutMs: number;
  /** progress lines (stderr): what the command is waiting for */
  progress: (line: string) => void;
}

export interface SentTx {
  txhash: string;
  height: number;
  gas_wanted: string;
  gas_used: string;
  fee: string;
}

const POLL_MS = 250;

function outcome(o: TxOutcome): string {
  return `code ${o.code}${o.codespace ? ` (${o.codespace})` : ''}: ${o.log || '(no log)'}`;
}

export async function sendTx(o: SendOptions): Promise<SentTx> {
  const address = toAccAddress(o.signer.cosmosAddress);
  const chainId = await o.node.chainId();
  const account = await o.node.account(address);
  if (!account)
    throw new ChainError(
      'TX_REJECTED',
      `account ${address} does not exist on ${chainId} (node ${o.node.url}): fund it with uchain first (\`chaind keys show\` prints its addresses)`,
    );
  const memo = o.memo ?? '';
  let gasLimit: bigint;
  if (o.gas === 'auto') {
    const used = await o.node.simulate(
      unsignedForSimulation({ messages: o.messages, memo, signer: o.signer, sequence: account.sequence }),
    );
    gasLimit = BigInt(Math.ceil(Number(used) * o.gasAdjustment));
  } else gasLimit = o.gas;
  const fee = feeFor(gasLimit, o.gasPrice);
  const raw = signTx({
    messages: o.messages,
    memo,
    signer: o.signer,
    chainId,
    accountNumber: account.accountNumber,
    sequence: account.sequence,
    gasLimit,
    fee,
  });
  const check = await o.node.broadcastSync(raw);
  if (check.code !== 0)
    throw new ChainError('TX_REJECTED', `the node refused tx ${check.hash} (CheckTx): ${outcome(check)}`);
  o.progress(
    `broadcast tx ${check.hash}; waiting up to ${Math.round(o.timeoutMs / 1000)}s for a block to include it`,
  );
  const included = await waitForBlock(o.node, check.hash, o.timeoutMs);
  if (included.code !== 0)
    throw new ChainError(
      'TX_REJECTED',
      `tx ${check.hash} failed in block ${included.height}: ${outcome(included)}`,
    );
  return {
    txhash: check.hash,
    height: included.height,
    gas_wanted: gasLimit.toString(),
    gas_used: included.gasUsed,
    fee: `${fee}uchain`,
  };
}

async function waitForBlock(node: NodeClient, hash: string, timeoutMs: number): Promise<IncludedTx> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await node.tx(hash);
    if (found) return found;
    if (Date.now() >= deadline)
      throw new ChainError(
        'TX_REJECTED',
        `tx ${hash} was accepted into the mempool but no block included it within ${Math.round(timeoutMs / 1000)}s; look it up later with ${node.url}/tx?hash=0x${hash}`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
