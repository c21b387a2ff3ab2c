/**
 * Where a tx command sends and what it pays when the operator does not say: the consensus RPC of the
 * home's `[rpc] laddr` (a wildcard host reached on loopback) and the home's `minimum-gas-prices`, so
 * that on the node's own machine the defaults are that node's.
 */
import { loadConfig } from '../../config/load.ts';
import { parseListenAddress } from '../../config/fields.ts';

export const FALLBACK_GAS_PRICE = '0.001uchain';

export function homeDefaults(home: string): { nodeUrl: string; gasPrice: string } {
  const { config } = loadConfig({ home, env: process.env, requireFiles: false });
  const listen = parseListenAddress(config.config.rpc.laddr)!;
  const wildcard = listen.host === '0.0.0.0' || listen.host === '::';
  const host = wildcard ? '127.0.0.1' : listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const minimum = config.app.minimumGasPrices.trim();
  return {
    nodeUrl: `http://${host}:${listen.port}`,
    gasPrice: minimum === '' ? FALLBACK_GAS_PRICE : minimum,
  };
}
