/** What a block's transaction produced beyond gas and status, the same whichever EVM ran it. */

export interface EthLog {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

/** What the address index needs of a tx's call tree beyond its receipt. */
export interface TxAddresses {
  /** Contracts created at any depth, failed creations included (not one that collided with an account). */
  created: Uint8Array[];
  /**
   * The caller, the callee and the code address of every message below the top one, and the
   * beneficiaries of the tx's selfdestructs; each address once.
   */
  internal: Uint8Array[];
}
