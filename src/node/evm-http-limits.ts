/**
 * The `[evm]` limits of the JSON-RPC HTTP port, applied alike by every thread that serves it (the
 * main thread and the RPC reader threads).
 */
import type { AppToml } from '../config/schema.ts';
import { type HttpServerOptions, parseCorsOrigins } from '../rpc/server/http.ts';

export function evmHttpLimits(
  evm: AppToml['evm'],
): Pick<
  HttpServerOptions,
  | 'maxBodyBytes'
  | 'batchLimit'
  | 'corsOrigins'
  | 'maxJsonDepth'
  | 'readHeaderTimeoutMs'
  | 'readTimeoutMs'
  | 'idleTimeoutMs'
  | 'maxConnections'
  | 'maxBufferedBytes'
> {
  return {
    maxBodyBytes: evm.maxRequestBodyBytes,
    batchLimit: evm.batchRequestLimit,
    corsOrigins: parseCorsOrigins(evm.corsOrigins),
    maxJsonDepth: evm.maxJsonDepth,
    readHeaderTimeoutMs: evm.readHeaderTimeout,
    readTimeoutMs: evm.readTimeout,
    idleTimeoutMs: evm.idleTimeout,
    maxConnections: evm.httpMaxConnections,
    maxBufferedBytes: evm.maxBufferedAnswerBytes,
  };
}
