import type { WebsocketClient } from '@cosmjs/tendermint-rpc';

/**
 * CosmJS 0.39's ReconnectingSocket also schedules a reconnect when it is disconnected on purpose, and
 * retries forever once the server is gone: its timer would keep a test's process alive after its
 * last test. Cleared right after `disconnect()`, which sets it synchronously.
 */
export function stopReconnecting(ws: WebsocketClient): void {
  const socket = (ws as unknown as { socket?: { reconnectTimeout?: NodeJS.Timeout | null } }).socket;
  if (socket?.reconnectTimeout) clearTimeout(socket.reconnectTimeout);
}
