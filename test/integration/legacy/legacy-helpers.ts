/** A node serving every PART A legacy method, and the clients the legacy tests share. */
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { until } from '../../helpers/node.ts';
import { rpcNode } from '../rpc/rpc-helpers.ts';

export const PART_A_METHODS = [
  'chain_getChainAddress',
  'chain_getEVMAddress',
  'chain_getCosmosTx',
  'chain_associate',
  'chain_getEvmTx',
  'chain_getTransactionErrorByHash',
  'chain_getVMError',
  'chain_getTransactionCount',
];

export const COSMOS_FEE = { amount: [{ denom: 'uchain', amount: '300' }], gas: '300000' };

export async function legacyNode(t: { after(fn: () => unknown): void }) {
  const n = await rpcNode(t, { 'evm.enabled_legacy_chain_apis': PART_A_METHODS.join(',') });
  const handles = n.node.modules;
  // CosmJS reads the latest block hash from /status, which is empty until the first block exists.
  await until(() => n.node.modules.chain.latestHeight >= 1);
  return {
    ...n,
    consensusUrl: `http://127.0.0.1:${handles.consensusRpc!.address.port}`,
    restUrl: `http://127.0.0.1:${handles.rest!.address.port}`,
  };
}

/** A CosmJS signing client for a secp256k1 key over the consensus RPC. */
export async function cosmjsSigner(
  t: { after(fn: () => unknown): void },
  rpcUrl: string,
  privateKey: Uint8Array,
) {
  const wallet = await DirectSecp256k1Wallet.fromKey(privateKey, 'chain');
  const client = await SigningStargateClient.connectWithSigner(rpcUrl, wallet);
  t.after(() => client.disconnect());
  return client;
}

/** Resolves when the async `predicate` holds, polling every 20 ms; rejects after `ms`. */
export async function eventually(predicate: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
