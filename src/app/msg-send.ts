/** bank's MsgSend: uchain from the signer to another account. */
import { MsgSend } from 'cosmjs-types/cosmos/bank/v1beta1/tx';
import { fromBech32 } from '../crypto/accounts.ts';
import { BASE_DENOM, BECH32_ACCOUNT_PREFIX, WEI_PER_UCHAIN } from '../primitives/identity.ts';
import { Auth } from './auth.ts';
import { Bank } from './bank.ts';
import { CosmosTxError, SdkCode } from './cosmos-errors.ts';
import type { DecodedMsg, MsgKind } from './msg-kinds.ts';
import { sendCoinsEvents } from './bank-events.ts';

export const MSG_SEND_TYPE_URL = '/cosmos.bank.v1beta1.MsgSend';

export interface SendMsg extends DecodedMsg {
  typeUrl: typeof MSG_SEND_TYPE_URL;
  from: Uint8Array;
  to: Uint8Array;
  fromBech32: string;
  toBech32: string;
  /** uchain */
  amount: bigint;
}

export const isSendMsg = (m: DecodedMsg): m is SendMsg => m.typeUrl === MSG_SEND_TYPE_URL;

const fail = (code: number, message: string): never => {
  throw new CosmosTxError(code, message);
};

export function parseAmount(s: string): bigint {
  if (!/^\d{1,77}$/.test(s)) fail(SdkCode.InvalidCoins, `invalid amount ${JSON.stringify(s)}: invalid coins`);
  return BigInt(s);
}

export function accAddress(bech: string, field: string): Uint8Array {
  try {
    return fromBech32(bech, BECH32_ACCOUNT_PREFIX);
  } catch (err) {
    return fail(
      SdkCode.InvalidAddress,
      `invalid ${field} ${JSON.stringify(bech)}: ${(err as Error).message}: invalid address`,
    );
  }
}

export const MSG_SEND: MsgKind<SendMsg> = {
  typeUrl: MSG_SEND_TYPE_URL,
  module: 'bank',
  decode(value, signer, i) {
    let m: MsgSend;
    try {
      m = MsgSend.decode(value);
    } catch (err) {
      return fail(SdkCode.TxDecode, `message ${i}: ${(err as Error).message}`);
    }
    const from = accAddress(m.fromAddress, 'from_address');
    const to = accAddress(m.toAddress, 'to_address');
    let amount = 0n;
    if (m.amount.length === 0) fail(SdkCode.InvalidCoins, 'send amount is empty: invalid coins');
    for (const c of m.amount) {
      if (c.denom !== BASE_DENOM)
        fail(SdkCode.InvalidCoins, `unknown denom ${c.denom}: only ${BASE_DENOM} can be sent on this chain`);
      amount += parseAmount(c.amount);
    }
    if (amount === 0n) fail(SdkCode.InvalidCoins, `0${BASE_DENOM}: invalid coins`);
    if (Buffer.compare(Buffer.from(from), Buffer.from(signer)) !== 0) {
      fail(SdkCode.Unauthorized, `message ${i} sender ${m.fromAddress} is not the signer: unauthorized`);
    }
    return { typeUrl: MSG_SEND_TYPE_URL, from, to, fromBech32: m.fromAddress, toBech32: m.toAddress, amount };
  },
  deliver(m, { state }) {
    const bank = new Bank(state);
    const have = bank.wei(m.from);
    const amount = m.amount * WEI_PER_UCHAIN;
    if (have < amount) {
      throw new CosmosTxError(
        SdkCode.InsufficientFunds,
        `spendable balance ${have / WEI_PER_UCHAIN}${BASE_DENOM} is smaller than ${m.amount}${BASE_DENOM}: insufficient funds`,
      );
    }
    bank.transferWei(m.from, m.to, amount);
    new Auth(state).ensureAccount(m.to);
    return sendCoinsEvents(m.fromBech32, m.toBech32, `${m.amount}${BASE_DENOM}`);
  },
};
