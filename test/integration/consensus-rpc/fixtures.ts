/** Signed transactions for consensus RPC tests: EVM transfers wrapped in TxRaw, Cosmos MsgSends. */
import { DirectSecp256k1Wallet } from '@cosmjs/proto-signing';
import { SigningStargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { Wallet } from 'ethers';
import { wrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import { DEV_ACCOUNTS } from '../../helpers/node.ts';

export const CHAIN_ID = 'it-1';
const GWEI = 10n ** 9n;
const wallets = DEV_ACCOUNTS.map((a) => new Wallet('0x' + Buffer.from(a.privateKey).toString('hex')));

/** A 1559 transfer of `value` wei from dev account `from` to dev account `to`, as block TxRaw bytes. */
export async function evmTransferTxRaw(
  from: number,
  to: number,
  nonce: number,
  value = 1000n,
): Promise<Uint8Array> {
  const signed = await wallets[from].signTransaction({
    type: 2,
    chainId: 713714n,
    to: wallets[to].address,
    value,
    nonce,
    gasLimit: 21000,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
  return wrapEthTransaction(Uint8Array.from(Buffer.from(signed.slice(2), 'hex')));
}

export const COSMOS_FEE = { amount: [{ denom: 'uchain', amount: '200' }], gas: '200000' };

/** A signed bank MsgSend of `amount` uchain from dev account `from`. */
export async function cosmosSendTxRaw(
  from: number,
  to: string,
  amount: string,
  accountNumber: bigint,
  sequence: bigint,
): Promise<Uint8Array> {
  const wallet = await DirectSecp256k1Wallet.fromKey(DEV_ACCOUNTS[from].privateKey, 'chain');
  const [{ address }] = await wallet.getAccounts();
  const client = await SigningStargateClient.offline(wallet);
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: to, amount: [{ denom: 'uchain', amount }] },
  };
  const signed = await client.sign(address, [msg], COSMOS_FEE, '', {
    accountNumber,
    sequence: Number(sequence),
    chainId: CHAIN_ID,
  });
  return TxRaw.encode(signed).finish();
}

export const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
export const hex = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();
