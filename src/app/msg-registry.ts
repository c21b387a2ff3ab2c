/** Every message kind a Cosmos tx may carry, by type URL (msg-kinds.ts). */
import type { DecodedMsg, MsgKind } from './msg-kinds.ts';
import { MSG_SEND } from './msg-send.ts';
import { STAKING_MSGS } from './staking/messages.ts';

export const MSG_KINDS: ReadonlyMap<string, MsgKind<DecodedMsg>> = new Map(
  [
    MSG_SEND,
    ...STAKING_MSGS,
    // slashing's MsgUnjail goes here
  ].map((k) => [k.typeUrl, k as unknown as MsgKind<DecodedMsg>]),
);
