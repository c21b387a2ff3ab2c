/**
 * An in-process node whose REST API listens on a free port (the node's own lifecycle starts it),
 * and a small fetch wrapper that keeps status, headers and the parsed JSON body.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StakingValidator } from '../../../src/app/genesis.ts';
import { BONDED_POOL, NOT_BONDED_POOL } from '../../../src/app/staking/pools.ts';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import type { ChainNode } from '../../../src/node/node.ts';
import { type LogRecord, memoryLogger } from '../../../src/util/logger.ts';
import { makeHome, startNode } from '../../helpers/node.ts';

export interface RestNode {
  node: ChainNode;
  home: string;
  /** http://127.0.0.1:<port> of the REST API */
  url: string;
  logs: LogRecord[];
  /** The genesis file's staking validators (the REST shape), in file order. */
  genesisValidators: StakingValidator[];
}

/**
 * Adds staking validators to genesis before the first start (they need not be in the consensus set:
 * jailed or not bonded), their tokens in the pool that holds them and in the supply.
 */
function addStakingValidators(home: string, extra: StakingValidator[]): StakingValidator[] {
  const path = join(home, 'config', 'genesis.json');
  const g = JSON.parse(readFileSync(path, 'utf8'));
  g.app_state.staking.validators.push(...extra);
  for (const v of extra) {
    const pool = toAccAddress(v.status === 'BOND_STATUS_BONDED' ? BONDED_POOL : NOT_BONDED_POOL);
    let entry = g.app_state.bank.balances.find((b: { address: string }) => b.address === pool);
    if (!entry)
      g.app_state.bank.balances.push((entry = { address: pool, coins: [{ denom: 'uchain', amount: '0' }] }));
    entry.coins[0].amount = String(BigInt(entry.coins[0].amount) + BigInt(v.tokens));
    g.app_state.bank.supply[0].amount = String(BigInt(g.app_state.bank.supply[0].amount) + BigInt(v.tokens));
  }
  writeFileSync(path, JSON.stringify(g, null, 2));
  return g.app_state.staking.validators;
}

export async function startRestNode(
  t: { after(fn: () => unknown): void },
  extraValidators: StakingValidator[] = [],
  flags: Record<string, string> = {},
): Promise<RestNode> {
  const home = makeHome(t);
  const genesisValidators = addStakingValidators(home, extraValidators);
  const logs: LogRecord[] = [];
  const node = await startNode(home, flags, memoryLogger(logs));
  t.after(() => node.stop());
  const rest = node.modules.rest;
  if (!rest) throw new Error('the node did not start its REST API');
  return { node, home, url: `http://127.0.0.1:${rest.address.port}`, logs, genesisValidators };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function get(url: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url + path, { headers });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export async function post(url: string, path: string, body: string): Promise<Answer> {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
