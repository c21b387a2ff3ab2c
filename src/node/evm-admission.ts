/**
 * The admission of the EVM JSON-RPC (`[evm] jwt_secret_file`, `client_quota`, `client_quota_burst`,
 * `quota_loopback`, `trusted_proxies`) as every thread serving it applies it: what is read once at
 * start (the secret, the shared quota buckets) travels to the RPC reader threads, and each thread and
 * transport builds its Admission over it.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Registry } from 'prom-client';
import type { AppToml } from '../config/schema.ts';
import { methodCost } from '../rpc/evm/method-costs.ts';
import { Admission } from '../rpc/server/admission.ts';
import { TrustedProxies } from '../rpc/server/client-address.ts';
import { JwtVerifier, readJwtSecret } from '../rpc/server/jwt.ts';
import { QuotaTable, quotaMemory } from '../rpc/server/quota.ts';
import { ChainError } from '../util/errors.ts';

/** What the threads serving the EVM JSON-RPC share (structured-clonable, for workerData). */
export interface AdmissionShared {
  /** The quota buckets of every client, one table for the HTTP port and the WebSocket port. */
  quota: SharedArrayBuffer;
  /** `[evm] jwt_secret_file`'s secret; absent: no authentication. */
  jwtSecret?: Uint8Array;
}

/**
 * Reads the secret and checks the proxies once; throws CONFIG_INVALID naming the key. `home`
 * resolves a relative `jwt_secret_file`.
 */
export function admissionShared(evm: AppToml['evm'], home: string): AdmissionShared {
  try {
    new TrustedProxies(evm.trustedProxies);
  } catch (err) {
    throw new ChainError('CONFIG_INVALID', `[evm] trusted_proxies: ${(err as Error).message}`);
  }
  const shared: AdmissionShared = { quota: quotaMemory() };
  if (evm.jwtSecretFile !== '') {
    const path = isAbsolute(evm.jwtSecretFile) ? evm.jwtSecretFile : resolve(home, evm.jwtSecretFile);
    try {
      shared.jwtSecret = readJwtSecret(path);
    } catch (err) {
      throw new ChainError('CONFIG_INVALID', `[evm] jwt_secret_file: ${(err as Error).message}`);
    }
  }
  return shared;
}

/** The Admission of one transport (`http`, `ws`) of one thread. */
export function evmAdmission(
  evm: AppToml['evm'],
  shared: AdmissionShared,
  transport: 'http' | 'ws',
  registry?: Registry,
): Admission {
  return new Admission({
    transport,
    proxies: new TrustedProxies(evm.trustedProxies),
    jwt: shared.jwtSecret
      ? new JwtVerifier(Buffer.from(shared.jwtSecret), '[evm] jwt_secret_file')
      : undefined,
    quota:
      evm.clientQuota > 0
        ? {
            table: new QuotaTable(shared.quota, evm.clientQuota, evm.clientQuotaBurst),
            cost: methodCost,
            loopback: evm.quotaLoopback,
          }
        : undefined,
    registry,
  });
}

/** The namespaces one transport serves (`[evm] http_api` or `ws_api`), as the dispatcher takes them. */
export function servedNamespaces(
  evm: AppToml['evm'],
  transport: 'http' | 'ws',
): { names: readonly string[]; key: string; transport: string } {
  return transport === 'http'
    ? { names: evm.httpApi, key: '[evm] http_api', transport: 'HTTP' }
    : { names: evm.wsApi, key: '[evm] ws_api', transport: 'WebSocket' };
}
