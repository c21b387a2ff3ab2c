/** HS256 JWT verification as geth's authenticated RPC does it, and the secret file's form. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { JwtVerifier, readJwtSecret, signJwt } from '../../../../src/rpc/server/jwt.ts';

const secret = Buffer.alloc(32, 7);
const now = 1_700_000_000_000;
const v = new JwtVerifier(secret, '[evm] jwt_secret_file', () => now);
const iat = now / 1000;

test('a token signed with the secret and a fresh iat passes; each fault is named', () => {
  assert.equal(v.verify(`Bearer ${signJwt(secret, iat)}`), undefined);
  assert.equal(v.verify(`bearer ${signJwt(secret, iat + 59)}`), undefined);
  assert.equal(v.verify(`Bearer ${signJwt(secret, iat - 60)}`), undefined);
  assert.equal(v.verify(undefined)?.reason, 'jwt_missing');
  assert.match(v.verify(undefined)!.message, /missing token.*\[evm\] jwt_secret_file/);
  assert.equal(v.verify('Basic dXNlcjpwYXNz')?.reason, 'jwt_missing');
  assert.equal(v.verify('Bearer abc')?.reason, 'jwt_malformed');
  assert.equal(v.verify('Bearer a.b.c')?.reason, 'jwt_malformed');
  const wrong = v.verify(`Bearer ${signJwt(Buffer.alloc(32, 8), iat)}`);
  assert.equal(wrong?.reason, 'jwt_signature');
  assert.match(wrong!.message, /invalid token signature/);
  const stale = v.verify(`Bearer ${signJwt(secret, iat - 61)}`);
  assert.equal(stale?.reason, 'jwt_iat');
  assert.match(stale!.message, /stale token: iat is 61 s in the past/);
  assert.match(v.verify(`Bearer ${signJwt(secret, iat + 120)}`)!.message, /future token/);
  // no iat at all
  const noIat = signJwt(secret, iat).split('.');
  noIat[1] = Buffer.from('{}').toString('base64url');
  const body = `${noIat[0]}.${noIat[1]}`;
  const signed = `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
  assert.match(v.verify(`Bearer ${signed}`)!.message, /missing issued-at/);
  // alg none is not accepted
  const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${noIat[1]}.`;
  assert.equal(v.verify(`Bearer ${none}`)?.reason, 'jwt_malformed');
});

test('the secret file holds 64 hex digits (0x and whitespace allowed)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jwt-'));
  const f = join(dir, 'jwt.hex');
  writeFileSync(f, `0x${'ab'.repeat(32)}\n`);
  assert.deepEqual(readJwtSecret(f), Buffer.alloc(32, 0xab));
  writeFileSync(f, 'ab'.repeat(31));
  assert.throws(() => readJwtSecret(f), /must hold 32 bytes as 64 hex digits/);
  assert.throws(() => readJwtSecret(join(dir, 'absent')), /cannot read the JWT secret file/);
});
