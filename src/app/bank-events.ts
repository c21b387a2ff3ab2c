/** Events as the SDK v0.50 emits them: bank's for its token moves, and the helper every module builds its events with. */
import type { TxEvent } from '../storage/blocks/types.ts';

export function ev(type: string, attrs: Record<string, string>): TxEvent {
  return { type, attributes: Object.entries(attrs).map(([key, value]) => ({ key, value, index: true })) };
}

/** Bank's SendCoins (module to module): coin_spent, coin_received, transfer, message{sender}. */
export const sendCoinsEvents = (sender: string, recipient: string, coins: string): TxEvent[] => [
  ev('coin_spent', { spender: sender, amount: coins }),
  ev('coin_received', { receiver: recipient, amount: coins }),
  ev('transfer', { recipient, sender, amount: coins }),
  ev('message', { sender }),
];

/** Bank's DelegateCoins and UndelegateCoins (account ↔ module): coin_spent, coin_received. */
export const delegateCoinsEvents = (from: string, to: string, coins: string): TxEvent[] => [
  ev('coin_spent', { spender: from, amount: coins }),
  ev('coin_received', { receiver: to, amount: coins }),
];

/** Bank's BurnCoins: coin_spent by the module, burn. */
export const burnEvents = (burner: string, coins: string): TxEvent[] => [
  ev('coin_spent', { spender: burner, amount: coins }),
  ev('burn', { burner, amount: coins }),
];
