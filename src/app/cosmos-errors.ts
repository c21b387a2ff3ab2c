/**
 * Cosmos SDK error codes (codespace "sdk") for transaction results, so that CosmJS and other Cosmos
 * clients recognise failures by code as they do on any Cosmos chain.
 */
import { ChainError } from '../util/errors.ts';

export const SdkCode = {
  TxDecode: 2,
  Unauthorized: 4,
  InsufficientFunds: 5,
  UnknownRequest: 6,
  InvalidAddress: 7,
  InvalidPubKey: 8,
  UnknownAddress: 9,
  InvalidCoins: 10,
  OutOfGas: 11,
  InsufficientFee: 13,
  NoSignatures: 15,
  InvalidRequest: 18,
  TxInMempoolCache: 19,
  MempoolIsFull: 20,
  TxTooLarge: 21,
  InvalidChainId: 28,
  WrongSequence: 32,
} as const;

export class CosmosTxError extends ChainError {
  readonly abciCode: number;
  readonly codespace: string;
  /** `codespace`: the module that defines the code ("sdk" for the SDK's own errors, "staking", …). */
  constructor(abciCode: number, message: string, codespace = 'sdk') {
    super(codespace === 'sdk' ? `SDK_${abciCode}` : `SDK_${codespace}_${abciCode}`, message);
    this.abciCode = abciCode;
    this.codespace = codespace;
  }
}
