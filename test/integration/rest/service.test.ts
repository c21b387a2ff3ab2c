/** The REST service's wiring: `[api] enable = false` serves nothing; a taken port stops startup clearly. */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { makeHome, startNode } from '../../helpers/node.ts';

test('[api] enable = false starts no REST server', async (t) => {
  const node = await startNode(makeHome(t), { 'api.enable': 'false' });
  t.after(() => node.stop());
  assert.equal(node.modules.rest, undefined);
});

test('a REST address already in use stops startup naming the address and the key', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const home = makeHome(t);
  await assert.rejects(startNode(home, { 'api.address': `tcp://127.0.0.1:${port}` }), {
    message: `the REST API cannot listen on 127.0.0.1:${port} ([api] address): listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
  });
});
