import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519FromJson, nodeIdOf } from '../crypto/node-keys.ts';
import { ChainError } from '../util/errors.ts';

/** The node ID derived from node_key.json's key (never trusting its stored `id` field blindly). */
export function showNodeId(home: string): string {
  const path = join(home, 'config', 'node_key.json');
  let json: { id?: string; priv_key?: { type?: string; value?: string } };
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ChainError('NODE_KEY', `${path}: cannot read node key: ${(err as Error).message}`);
  }
  const id = nodeIdOf(ed25519FromJson(json, path).publicKey);
  if (json.id !== undefined && json.id !== id) {
    throw new ChainError('NODE_KEY', `${path}: stored id ${json.id} does not match the key (${id})`);
  }
  return id;
}
