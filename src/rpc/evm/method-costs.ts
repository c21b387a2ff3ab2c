/**
 * What each JSON-RPC method costs against a client's `[evm] client_quota`, in units: roughly the
 * work it makes the node do, relative to `eth_blockNumber` (1). The one table of the weights; a name
 * not listed costs DEFAULT_COST, a name of a namespace listed by prefix costs that namespace's weight.
 * docs/operators/security.md ("Admission") shows the same table.
 */

/** A served name that is not listed: a plain read. */
export const DEFAULT_COST = 2;

export const METHOD_COSTS: Readonly<Record<string, number>> = {
  // answered from memory
  eth_chainId: 1,
  eth_blockNumber: 1,
  net_version: 1,
  net_listening: 1,
  net_peerCount: 1,
  web3_clientVersion: 1,
  web3_sha3: 1,
  eth_syncing: 1,
  eth_gasPrice: 1,
  eth_maxPriorityFeePerGas: 1,
  eth_accounts: 1,
  rpc_modules: 1,
  eth_uninstallFilter: 1,
  eth_unsubscribe: 1,
  // state and block reads (DEFAULT_COST: eth_getBalance, eth_getCode, eth_getStorageAt, eth_getTransactionCount,
  // eth_getBlockBy*, eth_getTransactionBy*, eth_getTransactionReceipt, ...)
  eth_getBlockReceipts: 5,
  eth_feeHistory: 5,
  eth_getProof: 10,
  eth_sendRawTransaction: 5,
  eth_sendRawTransactionSync: 5,
  eth_newFilter: 5,
  eth_getFilterChanges: 5,
  eth_subscribe: 5,
  // log queries and simulations
  eth_getLogs: 20,
  eth_getFilterLogs: 20,
  eth_call: 20,
  eth_estimateGas: 20,
  eth_createAccessList: 20,
  eth_simulateV1: 50,
  chain_getLogs: 20,
  chain_getFilterLogs: 20,
  chain2_getLogs: 20,
  chain2_getFilterLogs: 20,
  // re-executions of whole transactions and blocks
  debug_traceTransaction: 100,
  debug_traceCall: 100,
  debug_traceBlockByNumber: 200,
  debug_traceBlockByHash: 200,
  trace_filter: 200,
  chain_traceBlockByNumberExcludeTraceFail: 200,
  chain_traceBlockByHashExcludeTraceFail: 200,
};

/** Namespaces whose every method not listed above costs this much. */
export const NAMESPACE_COSTS: Readonly<Record<string, number>> = {
  debug: 100,
  trace: 100,
  ots: 20,
};

/** The weight of `method`. */
export function methodCost(method: string): number {
  const listed = METHOD_COSTS[method];
  if (listed !== undefined) return listed;
  const cut = method.indexOf('_');
  return (cut > 0 ? NAMESPACE_COSTS[method.slice(0, cut)] : undefined) ?? DEFAULT_COST;
}
