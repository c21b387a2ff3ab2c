/**
 * Chain information: client and network identity, head, fee suggestions (gas-price-oracle.ts), and the fixed answers of a
 * node without local accounts, mining or uncles.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { address, data, quantity } from '../codecs/hex.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { describeStateSync, type StateSyncProgress, type SyncStatus } from '../../chain/sync-status.ts';
import type { EvmBackend } from './backend.ts';
import { GasPriceOracle } from './gas-price-oracle.ts';
import type { Resolver } from './resolve.ts';

/**
 * `eth_syncing` as geth answers it: `false` while the node is current, else a progress object. geth
 * clients (ethclient.SyncProgress, web3's isSyncing, readiness probes) read any object as "not ready",
 * which is what a node that cannot make progress must say; so a halted node answers an object too,
 * with geth's three block fields (startingBlock: where it stands, since nothing was committed from
 * there) and `halted` / `haltReason` beside them, which those clients ignore and operators can read.
 */
export function syncingAnswer(s: SyncStatus): false | Record<string, unknown> {
  if (!s.catchingUp && !s.halted) return false;
  return {
    startingBlock: quantity(Math.min(s.startingHeight ?? s.latestHeight, s.latestHeight)),
    currentBlock: quantity(s.latestHeight),
    highestBlock: quantity(Math.max(s.bestKnownHeight, s.latestHeight)),
    halted: s.halted,
    ...(s.halted ? { haltReason: s.reason ?? '' } : {}),
    ...(s.stateSync ? { stateSync: stateSyncAnswer(s.stateSync) } : {}),
  };
}

/**
 * A state sync under way, beside geth's fields (as geth's snap-sync counters are): quantities, and
 * the one-line description.
 */
function stateSyncAnswer(p: StateSyncProgress): Record<string, string> {
  const out: Record<string, string> = { phase: p.phase, seconds: quantity(p.seconds) };
  const fields = {
    snapshotHeight: p.snapshotHeight,
    chunks: p.chunks,
    chunksReceived: p.chunksReceived,
    waitingForChunk: p.waitingForChunk,
    secondsSinceLastChunk: p.secondsSinceLastChunk,
    missingAnswers: p.missingAnswers,
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = quantity(v);
  out.description = describeStateSync(p);
  return out;
}

export function chainInfoMethods({ chain, options, sync }: EvmBackend, resolve: Resolver): MethodTable {
  const oracle = new GasPriceOracle(chain);
  const uncleCount = (h: number | undefined) => (h === undefined ? null : '0x0');
  return {
    web3_clientVersion: method([], () => options.clientVersion),
    web3_sha3: method([p.data], (input) => data(keccak_256(input))),
    net_version: method([], () => chain.chainId.toString(10)),
    net_listening: method([], () => true),
    eth_chainId: method([], () => quantity(chain.chainId)),
    eth_blockNumber: method([], () => quantity(chain.latestHeight())),
    eth_syncing: method([], () => syncingAnswer(sync())),
    eth_accounts: method([], () => []),
    eth_coinbase: method([], () => address(chain.coinbase)),
    eth_gasPrice: method([], async () => quantity(await oracle.suggestGasPrice())),
    eth_maxPriorityFeePerGas: method([], async () => quantity(await oracle.suggestTip())),
    eth_getUncleCountByBlockNumber: method([p.blockNumber], (ref) => uncleCount(resolve.lookup(ref))),
    eth_getUncleCountByBlockHash: method([p.hash], (hash) =>
      uncleCount(resolve.lookup({ kind: 'hash', hash, requireCanonical: false })),
    ),
    eth_getUncleByBlockNumberAndIndex: method([p.blockNumber, p.index], () => null),
    eth_getUncleByBlockHashAndIndex: method([p.hash, p.index], () => null),
  };
}
