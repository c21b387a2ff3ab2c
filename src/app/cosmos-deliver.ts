/**
 * Admission checks (CheckTx) and execution (DeliverTx) of Cosmos transactions. Execution charges gas
 * for every store access, takes the fee for the fee collector, advances the signer's sequence, links
 * the signer's EVM and Cosmos addresses on its first signed tx (moving the cast balance), then runs
 * the messages; a failing message reverts the messages but keeps fee and sequence, as in the SDK.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { toAccAddress } from '../crypto/accounts.ts';
import { verifySecp256k1 } from '../crypto/secp256k1-verify.ts';
import { BASE_DENOM, WEI_PER_UCHAIN } from '../primitives/identity.ts';
import type { StateOverlay } from '../state/overlay.ts';
import type { CosmosTxResult, TxEvent } from '../storage/blocks/types.ts';
import { Auth, AuthReader } from './auth.ts';
import { Bank, BankReader, InsufficientFundsError } from './bank.ts';
import { CosmosTxError, SdkCode } from './cosmos-errors.ts';
import { checkAssociation, deliverAssociation } from './association-tx.ts';
import { type DecodedCosmosTx, signDocBytes } from './cosmos-tx.ts';
import { MSG_KINDS } from './msg-registry.ts';
import { ev, sendCoinsEvents } from './bank-events.ts';
import type { BlockTime } from './staking/time.ts';
import { Evm, FEE_COLLECTOR_ADDRESS } from './evm.ts';
import { GasMeter, KV_GAS, MeteredState } from './gas-meter.ts';
import type { StateReader } from '../state/overlay.ts';

export interface MinGasPrice {
  /** uchain per gas = numerator / denominator */
  numerator: bigint;
  denominator: bigint;
}

/** Parses app.toml's `minimum-gas-prices` (e.g. "0.001uchain"; empty or "0uchain" = no minimum). */
export function parseMinGasPrice(text: string): MinGasPrice {
  const t = text.trim();
  if (t === '') return { numerator: 0n, denominator: 1n };
  const m = /^(\d+)(?:\.(\d{1,18}))?([a-z][a-z0-9/]*)$/.exec(t);
  if (!m || m[3] !== BASE_DENOM)
    throw new RangeError(
      `minimum-gas-prices ${JSON.stringify(text)}: expected <decimal>${BASE_DENOM}, e.g. "0.001${BASE_DENOM}"`,
    );
  const frac = m[2] ?? '';
  return { numerator: BigInt(m[1] + frac), denominator: 10n ** BigInt(frac.length) };
}

export interface CosmosTxContext {
  chainId: string;
  maxBlockGas: bigint;
  /**
   * Simulation (the tx service's Simulate), never block execution: as the SDK's simulate mode, an
   * empty signature is not verified (clients estimate gas before signing) and the gas a 64-byte
   * signature would cost is charged instead, so the estimate covers the signed tx; a gas limit of 0
   * (not chosen yet) runs with the block's gas limit.
   */
  simulate?: boolean;
  /** The block the tx executes in (absent in simulation: the time is now's). */
  block?: { height: number; time: BlockTime };
}

function nowTime(): BlockTime {
  const ms = Date.now();
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}

/** The size of a secp256k1 signature (r ‖ s), charged for an unsigned tx in simulation. */
const SIMULATED_SIGNATURE_BYTES = 64n;

const unsignedSimulation = (tx: DecodedCosmosTx, ctx: CosmosTxContext) =>
  ctx.simulate === true && tx.signature.length === 0;

/** A tx result as the block store keeps it, minus its position in the block. */
export type CosmosTxOutcome = Omit<CosmosTxResult, 'index'>;

/** Admission: everything that can be checked against the latest state without executing. */
export function checkCosmosTx(
  tx: DecodedCosmosTx,
  state: StateReader,
  ctx: CosmosTxContext,
  minGasPrice: MinGasPrice,
  expectedSequence?: bigint,
): void {
  if (tx.association) return checkAssociation(tx.association, state);
  checkSigner(tx, state, ctx, expectedSequence);
  const required = ceilDiv(tx.gasLimit * minGasPrice.numerator, minGasPrice.denominator);
  if (tx.fee < required) {
    throw new CosmosTxError(
      SdkCode.InsufficientFee,
      `insufficient fees; got: ${tx.fee}${BASE_DENOM} required: ${required}${BASE_DENOM}: insufficient fee`,
    );
  }
  const balance = new BankReader(state).wei(tx.signer);
  if (balance < tx.fee * WEI_PER_UCHAIN) {
    throw new CosmosTxError(
      SdkCode.InsufficientFunds,
      `${balance / WEI_PER_UCHAIN}${BASE_DENOM} is smaller than ${tx.fee}${BASE_DENOM}: insufficient funds`,
    );
  }
}

function checkSigner(
  tx: DecodedCosmosTx,
  state: StateReader,
  ctx: CosmosTxContext,
  expectedSequence?: bigint,
) {
  if (tx.gasLimit <= 0n && !(ctx.simulate === true && tx.gasLimit === 0n))
    throw new CosmosTxError(SdkCode.InvalidRequest, 'gas limit must be positive: invalid request');
  if (tx.gasLimit > ctx.maxBlockGas)
    throw new CosmosTxError(
      SdkCode.OutOfGas,
      `tx gas limit ${tx.gasLimit} exceeds the block gas limit ${ctx.maxBlockGas}`,
    );
  const account = new AuthReader(state).account(tx.signer);
  if (!account)
    throw new CosmosTxError(
      SdkCode.UnknownAddress,
      `account ${toAccAddress(tx.signer)} not found: unknown address`,
    );
  if (account.pubKey && Buffer.compare(Buffer.from(account.pubKey), Buffer.from(tx.publicKey)) !== 0) {
    throw new CosmosTxError(
      SdkCode.InvalidPubKey,
      `public key does not match account ${toAccAddress(tx.signer)}: invalid pubkey`,
    );
  }
  const expected = expectedSequence ?? account.sequence;
  if (tx.sequence !== expected) {
    throw new CosmosTxError(
      SdkCode.WrongSequence,
      `account sequence mismatch, expected ${expected}, got ${tx.sequence}: incorrect account sequence`,
    );
  }
  if (
    !unsignedSimulation(tx, ctx) &&
    !verifySecp256k1(tx.publicKey, signDocBytes(tx, ctx.chainId, account.accountNumber), tx.signature)
  ) {
    throw new CosmosTxError(
      SdkCode.Unauthorized,
      `signature verification failed; please verify account number (${account.accountNumber}), sequence (${tx.sequence}) and chain-id (${ctx.chainId}): unauthorized`,
    );
  }
  return account;
}

/**
 * The ante handler's fee deduction. Admission checked the fee against the committed balance, but an
 * earlier tx of the same block may have spent it since (the signer's own Ethereum tx): then the tx
 * fails its ante checks as the SDK's DeductFees fails it, and is left out of the block.
 */
function deductFee(bank: Bank, tx: DecodedCosmosTx): void {
  try {
    bank.transferWei(tx.signer, FEE_COLLECTOR_ADDRESS, tx.fee * WEI_PER_UCHAIN);
  } catch (err) {
    if (!(err instanceof InsufficientFundsError)) throw err;
    throw new CosmosTxError(
      SdkCode.InsufficientFunds,
      `${err.have / WEI_PER_UCHAIN}${BASE_DENOM} is smaller than ${tx.fee}${BASE_DENOM}: insufficient funds`,
    );
  }
}

/**
 * Executes `tx` on the block's overlay. Throws CosmosTxError when the tx fails its ante checks (it then
 * changes nothing and cannot be included); returns the result otherwise, failed messages included.
 */
export function deliverCosmosTx(
  tx: DecodedCosmosTx,
  overlay: StateOverlay,
  ctx: CosmosTxContext,
): CosmosTxOutcome {
  if (tx.association) return deliverAssociation(tx.association, overlay);
  const meter = new GasMeter(ctx.simulate === true && tx.gasLimit === 0n ? ctx.maxBlockGas : tx.gasLimit);
  const state = new MeteredState(overlay, meter);
  const anteEvents: TxEvent[] = [];
  const signerBech = toAccAddress(tx.signer);
  overlay.checkpoint();
  try {
    meter.consume(KV_GAS.txSizePerByte * BigInt(tx.raw.length), 'txSize');
    if (unsignedSimulation(tx, ctx))
      meter.consume(KV_GAS.txSizePerByte * SIMULATED_SIGNATURE_BYTES, 'txSize: simulated signature');
    meter.consume(KV_GAS.sigVerifySecp256k1, 'ante verify: secp256k1');
    const account = checkSigner(tx, state, ctx);
    const bank = new Bank(state);
    const auth = new Auth(state);
    deductFee(bank, tx);
    auth.setAccount({ ...account, sequence: account.sequence + 1n, pubKey: tx.publicKey });
    associate(tx, state);
    anteEvents.push(...anteEventsOf(tx, signerBech));
    overlay.commit();
  } catch (err) {
    overlay.revert();
    throw err;
  }

  const events = [...anteEvents];
  overlay.checkpoint();
  try {
    const block = ctx.block ?? { height: 0, time: nowTime() };
    for (const [i, m] of tx.msgs.entries()) {
      const kind = MSG_KINDS.get(m.typeUrl)!;
      // baseapp's message event first, then the message's own; each tagged with msg_index
      const msgIndex = { key: 'msg_index', value: String(i), index: true };
      const own = kind.deliver(m, { state, signer: tx.signer, block });
      events.push(
        ev('message', { action: m.typeUrl, sender: signerBech, module: kind.module, msg_index: String(i) }),
        ...own.map((e) => ({ ...e, attributes: [...e.attributes, msgIndex] })),
      );
    }
    overlay.commit();
    return { code: 0, codespace: '', log: '', gasWanted: tx.gasLimit, gasUsed: meter.consumed, events };
  } catch (err) {
    overlay.revert();
    if (!(err instanceof CosmosTxError)) throw err;
    return {
      code: err.abciCode,
      codespace: err.codespace,
      log: err.message,
      gasWanted: tx.gasLimit,
      gasUsed: meter.consumed,
      events: anteEvents,
    };
  }
}

/** First signed tx of a key: link its EVM address (keccak of the full key) and move the cast's balance. */
function associate(tx: DecodedCosmosTx, state: MeteredState): void {
  const evm = new Evm(state);
  if (evm.evmAddressOf(tx.signer)) return;
  const uncompressed = secp256k1.Point.fromBytes(tx.publicKey).toBytes(false);
  const evmAddress = keccak_256(uncompressed.subarray(1)).subarray(12);
  if (evm.cosmosAddressOf(evmAddress)) return;
  evm.associate(evmAddress, tx.signer);
  const bank = new Bank(state);
  bank.transferWei(evmAddress, tx.signer, bank.wei(evmAddress));
}

/**
 * The ante handler's events in the SDK's order (v0.50): the fee's SendCoins to the fee collector
 * (none for a zero fee), `tx` with fee and fee payer, then `tx` with acc_seq and with the signature
 * (SetPubKeyDecorator).
 */
function anteEventsOf(tx: DecodedCosmosTx, signerBech: string): TxEvent[] {
  const fee = tx.fee > 0n ? `${tx.fee}${BASE_DENOM}` : '';
  return [
    ...(tx.fee > 0n ? sendCoinsEvents(signerBech, toAccAddress(FEE_COLLECTOR_ADDRESS), fee) : []),
    ev('tx', { fee, fee_payer: signerBech }),
    ev('tx', { acc_seq: `${signerBech}/${tx.sequence}` }),
    ev('tx', { signature: Buffer.from(tx.signature).toString('base64') }),
  ];
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
