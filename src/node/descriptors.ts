/**
 * File descriptors: the listeners' connection caps must leave room for what the node itself opens
 * (databases, logs, the validator state written at every block, worker threads). A connection
 * flood that takes every descriptor once made block production fail with EMFILE; with the caps
 * summed under the limit minus a reserve, a flood fills the caps and nothing else notices.
 *
 * The limit is the process's RLIMIT_NOFILE soft limit (`ulimit -n`), which Node raises to the hard
 * limit at startup; read from /proc on Linux. Where it cannot be read the caps are used as set.
 */
import { readFileSync } from 'node:fs';
import type { NodeConfig } from '../config/schema.ts';
import type { Logger } from '../util/logger.ts';

/**
 * Descriptors kept out of the caps: a running node holds about 40 (stores, pipes, event loop), and
 * each listener may hold up to 64 more briefly while it refuses connections (rpc/server/connections.ts).
 */
export const DESCRIPTOR_RESERVE = 1024;

/** The soft limit on open files of this process, or undefined where the platform does not tell. */
export function openFileLimit(procLimits = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(procLimits, 'utf8');
  } catch {
    return undefined;
  }
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (!m) return undefined;
  return m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
}

interface Cap {
  key: string;
  get: () => number;
  set: (n: number) => void;
}

/** The connection caps of the listeners this configuration enables. */
function enabledCaps(c: NodeConfig): Cap[] {
  const { evm, api, grpc } = c.app;
  const { rpc, instrumentation } = c.config;
  const caps: (Cap | false)[] = [
    evm.httpEnabled && {
      key: '[evm] http_max_connections',
      get: () => evm.httpMaxConnections,
      set: (n) => (evm.httpMaxConnections = n),
    },
    evm.wsEnabled && {
      key: '[evm] ws_max_connections',
      get: () => evm.wsMaxConnections,
      set: (n) => (evm.wsMaxConnections = n),
    },
    {
      key: '[rpc] max-open-connections',
      get: () => rpc.maxOpenConnections,
      set: (n) => (rpc.maxOpenConnections = n),
    },
    api.enable && {
      key: '[api] max-open-connections',
      get: () => api.maxOpenConnections,
      set: (n) => (api.maxOpenConnections = n),
    },
    grpc.enable && {
      key: '[grpc] max-open-connections',
      get: () => grpc.maxOpenConnections,
      set: (n) => (grpc.maxOpenConnections = n),
    },
    instrumentation.prometheus && {
      key: '[instrumentation] max-open-connections',
      get: () => instrumentation.maxOpenConnections,
      set: (n) => (instrumentation.maxOpenConnections = n),
    },
  ];
  return caps.filter((c): c is Cap => c !== false);
}

/**
 * The configuration with its connection caps fitted to the descriptor limit: when the caps of the
 * enabled listeners sum to more than the limit minus the reserve, each is scaled down in proportion
 * (at least 1) and a warning names them. `limit` undefined: the caps are kept.
 */
export function fitConnectionCaps(config: NodeConfig, limit: number | undefined, log: Logger): NodeConfig {
  const fitted = structuredClone(config);
  const caps = enabledCaps(fitted);
  const sum = caps.reduce((a, c) => a + c.get(), 0);
  if (limit === undefined || !Number.isFinite(limit)) {
    log.debug({ limit: String(limit), connection_caps: sum }, 'file descriptor limit not checked');
    return fitted;
  }
  const reserve = Math.min(DESCRIPTOR_RESERVE, Math.floor(limit / 2));
  const budget = Math.max(caps.length, limit - reserve);
  if (sum <= budget) {
    log.info({ limit, reserve, connection_caps: sum }, 'connection caps fit the file descriptor limit');
    return fitted;
  }
  const scaled: Record<string, string> = {};
  for (const c of caps) {
    const n = Math.max(1, Math.floor((c.get() * budget) / sum));
    scaled[c.key] = `${c.get()} -> ${n}`;
    c.set(n);
  }
  log.warn(
    { limit, reserve, connection_caps: sum, ...scaled },
    'the connection caps exceed the file descriptor limit (ulimit -n) minus a reserve: each is lowered in proportion; raise the limit (e.g. systemd LimitNOFILE) or lower the caps',
  );
  return fitted;
}
