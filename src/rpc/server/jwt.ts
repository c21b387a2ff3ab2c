/**
 * geth's authenticated RPC (`--authrpc.jwtsecret`): with `[evm] jwt_secret_file` set, every request
 * carries `Authorization: Bearer <JWT>`, an HS256 token signed with the file's 32-byte secret whose
 * `iat` claim is within 60 s of the node's clock (no other claim is required). The answer to a
 * refusal names what was wrong: no token, a malformed one, a bad signature, or a stale `iat`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** How far `iat` may be from the node's clock, either way (geth's rule). */
export const JWT_IAT_WINDOW_S = 60;

export type JwtRefusal =
  | { reason: 'jwt_missing'; message: string }
  | { reason: 'jwt_malformed'; message: string }
  | { reason: 'jwt_signature'; message: string }
  | { reason: 'jwt_iat'; message: string };

/**
 * The secret of a geth-style JWT secret file: 64 hex digits (a 0x prefix and surrounding whitespace
 * allowed). Throws naming the file and what is wrong with it.
 */
export function readJwtSecret(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the JWT secret file ${path}: ${(err as Error).message}`);
  }
  const hex = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex))
    throw new Error(`the JWT secret file ${path} must hold 32 bytes as 64 hex digits`);
  return Buffer.from(hex, 'hex');
}

/** An HS256 token with `iat` = `iatSeconds` (for clients and tests). */
export function signJwt(secret: Buffer, iatSeconds: number, claims: Record<string, unknown> = {}): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const body = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc({ iat: iatSeconds, ...claims })}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

export class JwtVerifier {
  private readonly secret: Buffer;
  private readonly now: () => number;
  private readonly key: string;

  /** `key` names the setting in refusals; `now`: the clock in ms. */
  constructor(secret: Buffer, key: string, now: () => number = Date.now) {
    this.secret = secret;
    this.key = key;
    this.now = now;
  }

  /** Why the request with this Authorization header is refused; undefined when it may pass. */
  verify(authorization: string | undefined): JwtRefusal | undefined {
    const need = `this node requires Authorization: Bearer <HS256 JWT> (${this.key} is set)`;
    if (!authorization)
      return { reason: 'jwt_missing', message: `missing token: no Authorization header; ${need}` };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m)
      return {
        reason: 'jwt_missing',
        message: `missing token: the Authorization header is not Bearer; ${need}`,
      };
    const parts = m[1].split('.');
    if (parts.length !== 3)
      return { reason: 'jwt_malformed', message: 'malformed token: a JWT has three dot-separated parts' };
    let header: unknown;
    let claims: unknown;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return {
        reason: 'jwt_malformed',
        message: 'malformed token: its header or claims are not base64url JSON',
      };
    }
    if ((header as { alg?: unknown } | null)?.alg !== 'HS256')
      return { reason: 'jwt_malformed', message: 'malformed token: its alg must be HS256' };
    const want = createHmac('sha256', this.secret).update(`${parts[0]}.${parts[1]}`).digest();
    const got = Buffer.from(parts[2], 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want))
      return {
        reason: 'jwt_signature',
        message: `invalid token signature: not signed with the secret of ${this.key}`,
      };
    const iat = (claims as { iat?: unknown } | null)?.iat;
    if (typeof iat !== 'number' || !Number.isFinite(iat))
      return { reason: 'jwt_iat', message: 'missing issued-at: the token has no numeric iat claim' };
    const skew = iat - this.now() / 1000;
    if (skew < -JWT_IAT_WINDOW_S)
      return {
        reason: 'jwt_iat',
        message: `stale token: iat is ${Math.round(-skew)} s in the past (at most ${JWT_IAT_WINDOW_S} s allowed)`,
      };
    if (skew > JWT_IAT_WINDOW_S)
      return {
        reason: 'jwt_iat',
        message: `future token: iat is ${Math.round(skew)} s ahead (at most ${JWT_IAT_WINDOW_S} s allowed)`,
      };
    return undefined;
  }
}
