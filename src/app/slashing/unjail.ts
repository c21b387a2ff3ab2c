/**
 * MsgUnjail: the operator of a jailed validator brings it back once its jail time is over, as the
 * SDK's Keeper.Unjail checks it (in its order, so the same tx fails with the same error). The end
 * of the block may then bond it again.
 */
import { MsgUnjail } from 'cosmjs-types/cosmos/slashing/v1beta1/tx';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { fromBech32, toAccAddress } from '../../crypto/accounts.ts';
import { BECH32_VALOPER_PREFIX } from '../../primitives/identity.ts';
import type { TxEvent } from '../../storage/blocks/types.ts';
import { CosmosTxError, SdkCode } from '../cosmos-errors.ts';
import { type StakingForSlashing, stakingForSlashing } from '../staking/for-slashing.ts';
import type { StateWriter } from '../state-access.ts';
import { SlashingCode, slashingError } from './errors.ts';
import { SigningInfoReader } from './signing-info.ts';

export const MSG_UNJAIL_TYPE_URL = '/cosmos.slashing.v1beta1.MsgUnjail';

export interface DecodedMsgUnjail {
  validatorAddr: string;
  /** The valoper's 20 bytes, which are also the signer's account bytes. */
  operator: Uint8Array;
}

/** What delivering a message needs of its block. */
export interface MsgContext {
  height: number;
  time: { seconds: number; nanos: number };
}

/** Decodes and checks the message statelessly; the signer must be the operator (its signer field). */
export function decodeMsgUnjail(any: Any, signer: Uint8Array): DecodedMsgUnjail {
  let m: MsgUnjail;
  try {
    m = MsgUnjail.decode(any.value);
  } catch (err) {
    throw new CosmosTxError(SdkCode.TxDecode, `${MSG_UNJAIL_TYPE_URL}: ${(err as Error).message}`);
  }
  if (m.validatorAddr === '')
    throw new CosmosTxError(SdkCode.InvalidAddress, 'empty validator address: invalid address');
  let operator: Uint8Array;
  try {
    operator = fromBech32(m.validatorAddr, BECH32_VALOPER_PREFIX);
  } catch (err) {
    throw new CosmosTxError(
      SdkCode.InvalidAddress,
      `validator address ${JSON.stringify(m.validatorAddr)}: ${(err as Error).message}: invalid address`,
    );
  }
  if (Buffer.compare(Buffer.from(operator), Buffer.from(signer)) !== 0)
    throw new CosmosTxError(
      SdkCode.Unauthorized,
      `MsgUnjail for ${m.validatorAddr} must be signed by its operator ${toAccAddress(operator)}, not ${toAccAddress(signer)}: unauthorized`,
    );
  return { validatorAddr: m.validatorAddr, operator };
}

/**
 * Unjails the validator or throws the SDK's error. Emits no event of its own (the SDK's Unjail emits
 * none; the message event is the tx's).
 */
export function deliverMsgUnjail(
  msg: DecodedMsgUnjail,
  state: StateWriter,
  ctx: MsgContext,
  staking: StakingForSlashing = stakingForSlashing(state, ctx.height),
): TxEvent[] {
  const validator = staking.validatorByOperator(msg.operator);
  if (!validator) throw slashingError(SlashingCode.NoValidatorForAddress, msg.validatorAddr);
  const self = staking.selfDelegationTokens(msg.operator);
  if (self === 0n) throw slashingError(SlashingCode.MissingSelfDelegation);
  if (self < validator.minSelfDelegation)
    throw slashingError(
      SlashingCode.SelfDelegationTooLowToUnjail,
      `${self} less than ${validator.minSelfDelegation}`,
    );
  if (!validator.jailed) throw slashingError(SlashingCode.ValidatorNotJailed);
  // no signing info: jailed without ever being bonded (below its minimum self-delegation), free to go
  const info = new SigningInfoReader(state).get(validator.consAddress);
  if (info) {
    if (info.tombstoned) throw slashingError(SlashingCode.ValidatorJailed, 'validator is tombstoned');
    const until = info.jailedUntil;
    if (
      ctx.time.seconds < until.seconds ||
      (ctx.time.seconds === until.seconds && ctx.time.nanos < until.nanos)
    )
      throw slashingError(
        SlashingCode.ValidatorJailed,
        `jailed until ${new Date(until.seconds * 1000).toISOString()}`,
      );
  }
  staking.unjail(msg.operator);
  return [];
}
