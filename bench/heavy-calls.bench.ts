/**
 * How much heavy calls stall cheap ones: eth_blockNumber latency (one keep-alive connection, a call
 * every 10 ms) while a spawned `chaind dev` serves, one scenario after another: nothing; one widest
 * eth_getLogs; ten of them at once; a struct-log debug_traceCall of an endless loop; an eth_call of
 * an endless loop (runs out of its 10M gas). The chain holds LOGS_TXS x 9,000 logs of 32 bytes.
 *
 *   npm run bench -- heavy-calls [extra --section.key value flags for the node]
 *
 * Prints per scenario {figure: "<scenario>.blockNumber_p50|p99|max", unit: "ms"} and the heavy
 * calls' own duration and answer (bytes, or the error).
 */
import { Agent, request } from 'node:http';
import { BlockNumberProbe, spawnDev } from '../test/helpers/abuse.ts';
import { fillLogs, rpc } from '../test/helpers/log-load.ts';
import { report } from './report.ts';

const LOGS_TXS = Number(process.env.LOGS_TXS ?? 5);

/** POSTs `body`; resolves with the answer's length and its first 300 characters. */
function rawPost(url: string, body: unknown, agent: Agent): Promise<{ bytes: number; head: string }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (res) => {
        let bytes = 0;
        let head = '';
        res.on('data', (c: Buffer) => {
          if (head.length < 300) head += c.toString('utf8', 0, Math.min(c.length, 300));
          bytes += c.length;
        });
        res.on('end', () => resolve({ bytes, head }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
const cleanups: (() => unknown)[] = [];
const t = { after: (fn: () => unknown) => cleanups.push(fn) };
const flags: Record<string, string> = {};
const extra = process.argv.slice(3);
for (let i = 0; i + 1 < extra.length; i += 2) flags[extra[i].replace(/^--/, '')] = extra[i + 1];

try {
  const node = await spawnDev(t, flags);
  const range = await fillLogs(node.http, LOGS_TXS, 9_000);
  report('heavy-calls', 'logs', LOGS_TXS * 9_000, 'logs', { blocks: range });
  const heavyAgent = new Agent({ keepAlive: true, maxSockets: 16 });
  const latest = Number(await rpc(node.http, 'eth_blockNumber'));
  const widest = {
    fromBlock: '0x' + Math.max(1, latest - 1999).toString(16),
    toBlock: '0x' + latest.toString(16),
  };

  // The answers are counted, not parsed: parsing 22 MB here would stall this process's own probe.
  const heavy = async (body: unknown) => {
    const t0 = performance.now();
    const r = await rawPost(node.http, body, heavyAgent).catch((err: Error) => ({
      bytes: 0,
      head: err.message,
    }));
    const ms = performance.now() - t0;
    const answer = r.head.includes('"error"') ? `error ${r.head.slice(0, 200)}` : `${r.bytes} bytes`;
    return { ms, answer };
  };
  const scenario = async (name: string, run: () => Promise<{ ms: number; answer: string }[]>) => {
    const probe = new BlockNumberProbe(t, node.http, 10);
    await new Promise((r) => setTimeout(r, 200));
    const results = await run();
    await new Promise((r) => setTimeout(r, 200));
    const p = await probe.stop();
    report('heavy-calls', `${name}.blockNumber_p50`, p.p50Ms, 'ms');
    report('heavy-calls', `${name}.blockNumber_p99`, p.p99Ms, 'ms', {
      answered: p.answered,
      failed: p.failed,
    });
    report('heavy-calls', `${name}.blockNumber_max`, p.maxMs, 'ms');
    for (const [i, r] of results.entries())
      report('heavy-calls', `${name}.call${i}`, r.ms, 'ms', { answer: r.answer });
  };
  const getLogs = { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [widest] };
  await scenario('idle', async () => {
    await new Promise((r) => setTimeout(r, 2_000));
    return [];
  });
  // the first query loads the logs into the node's cache; the figures below are of warm queries
  await heavy(getLogs);
  await scenario('getLogs_1', async () => [await heavy(getLogs)]);
  await scenario('getLogs_10', () => Promise.all(Array.from({ length: 10 }, () => heavy(getLogs))));
  await scenario('traceCall_structLogs', async () => [
    await heavy({
      jsonrpc: '2.0',
      id: 1,
      method: 'debug_traceCall',
      params: [{ data: '0x5b600056' }, 'latest'],
    }),
  ]);
  await scenario('eth_call_loop', async () => [
    await heavy({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ data: '0x5b600056' }, 'latest'] }),
  ]);
  heavyAgent.destroy();
} finally {
  for (const fn of cleanups.reverse()) await fn();
}
