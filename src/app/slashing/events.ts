/** Slashing's events, with the SDK's types and attribute keys (x/slashing/types/events.go). */
import type { TxEvent } from '../../storage/blocks/types.ts';

// Every attribute indexed: what baseapp does when app.toml's index-events is empty (the default).
export function slashingEvent(type: 'slash' | 'liveness', attrs: Record<string, string>): TxEvent {
  return { type, attributes: Object.entries(attrs).map(([key, value]) => ({ key, value, index: true })) };
}

/** sdk.ValidatorUpdateDelay: a set decided at the end of block H signs from H + 2. */
export const VALIDATOR_UPDATE_DELAY = 1;
