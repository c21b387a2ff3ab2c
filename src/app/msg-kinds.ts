/**
 * The messages a Cosmos tx may carry, one entry per type URL: decoding with the checks that need no
 * state (the SDK's ValidateBasic and who must sign), and execution on the block's state. Admission
 * decodes, execution delivers; a module adds a message with one entry in MSG_KINDS.
 */
import type { TxEvent } from '../storage/blocks/types.ts';
import type { StateWriter } from './state-access.ts';
import type { BlockTime } from './staking/time.ts';

/** A decoded message; each kind adds its fields. */
export interface DecodedMsg {
  typeUrl: string;
}

export interface MsgContext {
  state: StateWriter;
  signer: Uint8Array;
  /** The block executing the tx (a simulation: the next block as far as it is known). */
  block: { height: number; time: BlockTime };
}

export interface MsgKind<M extends DecodedMsg> {
  typeUrl: string;
  /** The module name baseapp's message event carries. */
  module: string;
  /** Throws CosmosTxError for what is wrong without looking at state, incl. a signer that may not sign it. */
  decode(value: Uint8Array, signer: Uint8Array, index: number): M;
  /** The events after baseapp's message event; throws CosmosTxError to fail the tx's messages. */
  deliver(msg: M, ctx: MsgContext): TxEvent[];
}
