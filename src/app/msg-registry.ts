/** Every message kind a Cosmos tx may carry, by type URL (msg-kinds.ts). */
import type { DecodedMsg, MsgKind } from './msg-kinds.ts';
import { MSG_SEND } from './msg-send.ts';
import { MSG_UNJAIL } from './slashing/msg-unjail.ts';
import { STAKING_MSGS } from './staking/messages.ts';

export const MSG_KINDS: ReadonlyMap<string, MsgKind<DecodedMsg>> = new Map(
  [MSG_SEND, ...STAKING_MSGS, MSG_UNJAIL].map((k) => [k.typeUrl, k as unknown as MsgKind<DecodedMsg>]),
);
