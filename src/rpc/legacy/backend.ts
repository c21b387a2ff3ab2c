/**
 * What the legacy chain_ methods of PART A read and do, as narrow interfaces that node/ implements
 * (node/adapters/legacy-backend.ts) over the evm module's association records, the block store and the
 * Cosmos pool. rpc/ never touches storage (docs/adr/0011-layers-and-narrow-interfaces.md).
 */
export interface AssociationLookup {
  /** The Cosmos address associated with an EVM address in the latest state (no cast fallback). */
  cosmosAddressOf(evmAddress: Uint8Array): Uint8Array | undefined;
  /** The EVM address associated with a Cosmos address in the latest state. */
  evmAddressOf(cosmosAddress: Uint8Array): Uint8Array | undefined;
}

export interface AssociationSubmission {
  customMessage: Uint8Array;
  r: Uint8Array;
  s: Uint8Array;
  /** recovery id */
  v: 0 | 1;
}

/** A Cosmos tx of a block, in the REST API's JSON form (cosmos.tx.v1beta1.Tx). */
export interface CosmosTxRecord {
  /** SHA-256 of the TxRaw */
  hash: Uint8Array;
  height: number;
  /** position in the block's txs */
  index: number;
  /** `{body, auth_info, signatures}` exactly as the REST API prints it */
  tx: unknown;
  /** keccak-256 of the Ethereum tx the TxRaw wraps, when it wraps one */
  evmTxHash?: Uint8Array;
}

export interface TxFailure {
  /** The VM's error as the receipt keeps it ("" when the tx succeeded). */
  vmError: string;
  /** The failure in words, with a decoded revert reason when there is one ("" on success). */
  message: string;
}

export interface LegacyBackend {
  associations: AssociationLookup;
  /**
   * Submits the fee-less association tx; returns its hash (SHA-256 of the TxRaw). Throws a ChainError
   * naming the refusal (already associated, no balance, bad signature). Absent: not served.
   */
  submitAssociation?(req: AssociationSubmission): Promise<Uint8Array>;
  /** The TxRaw that carries a mined EVM tx. */
  cosmosTxOfEvmTx(evmTxHash: Uint8Array): CosmosTxRecord | undefined;
  /** A mined tx by its SHA-256 (Cosmos or wrapped EVM). */
  cosmosTx(cosmosTxHash: Uint8Array): CosmosTxRecord | undefined;
  /**
   * The failure of a mined EVM tx, or of a Cosmos tx by its synthetic hash (its result log); undefined
   * when neither has this hash.
   */
  txFailure(evmTxHash: Uint8Array): TxFailure | undefined;
}
