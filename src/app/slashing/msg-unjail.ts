/** `MsgUnjail` as a message kind of the registry (msg-kinds.ts). */
import { Any } from 'cosmjs-types/google/protobuf/any';
import type { DecodedMsg, MsgKind } from '../msg-kinds.ts';
import { stakingForSlashing } from '../staking/for-slashing.ts';
import { timeNs } from '../staking/time.ts';
import { type DecodedMsgUnjail, decodeMsgUnjail, deliverMsgUnjail, MSG_UNJAIL_TYPE_URL } from './unjail.ts';

export const MSG_UNJAIL: MsgKind<DecodedMsgUnjail & DecodedMsg> = {
  typeUrl: MSG_UNJAIL_TYPE_URL,
  module: 'slashing',
  decode: (value, signer) => ({
    typeUrl: MSG_UNJAIL_TYPE_URL,
    ...decodeMsgUnjail(Any.fromPartial({ typeUrl: MSG_UNJAIL_TYPE_URL, value }), signer),
  }),
  deliver: (msg, { state, block }) =>
    deliverMsgUnjail(msg, state, block, stakingForSlashing(state, block.height, timeNs(block.time))),
};
