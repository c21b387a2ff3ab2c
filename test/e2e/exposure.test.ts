/**
 * What a node exposes by default: REST, gRPC and metrics listen on loopback unless the operator
 * opts in, and the EVM JSON-RPC sends no CORS header unless origins are listed (`chaind dev` lists
 * `*` for the developer's browser).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';
import { spawnDev } from '../helpers/abuse.ts';

function setting(text: string, section: string, key: string): string {
  const at = text.indexOf(`[${section}]`);
  assert.ok(at >= 0 || section === '', `no [${section}] section`);
  const m = new RegExp(`^${key} = (.*)$`, 'm').exec(text.slice(Math.max(0, at)));
  assert.ok(m, `no ${key} in [${section}]`);
  return JSON.parse(m[1]);
}

async function corsHeader(url: string): Promise<string | null> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }),
  });
  assert.equal(res.status, 200);
  assert.match(((await res.json()) as { result: string }).result, /^0x/);
  return res.headers.get('access-control-allow-origin');
}

test('init writes loopback addresses for REST, gRPC and metrics and no CORS origins; start serves no CORS header', async (t) => {
  const home = tempHome(t);
  const r = runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home, '--engine', 'embedded']);
  assert.equal(r.code, 0, r.stderr);
  const app = readFileSync(join(home, 'config', 'app.toml'), 'utf8');
  const config = readFileSync(join(home, 'config', 'config.toml'), 'utf8');
  assert.equal(setting(app, 'api', 'address'), 'tcp://127.0.0.1:1317');
  assert.equal(setting(app, 'grpc', 'address'), '127.0.0.1:9090');
  assert.equal(setting(config, 'instrumentation', 'prometheus-listen-addr'), '127.0.0.1:26660');
  assert.equal(setting(app, 'evm', 'cors_origins'), '');

  const node = new ChaindProcess(['start', '--home', home, '--log_format', 'json']);
  t.after(() => node.stop('SIGKILL'));
  const line = await node.waitForLine((l) => l.includes('"JSON-RPC server listening"'), 60_000);
  assert.equal(await corsHeader(JSON.parse(line).address), null);
  assert.equal((await node.stop()).code, 0);
});

test('chaind dev lists * as CORS origin in its home and answers any origin', async (t) => {
  const node = await spawnDev(t);
  const app = readFileSync(join(node.home, 'config', 'app.toml'), 'utf8');
  assert.equal(setting(app, 'evm', 'cors_origins'), '*');
  assert.equal(await corsHeader(node.http), '*');
});
