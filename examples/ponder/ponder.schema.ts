import { onchainTable } from 'ponder';

/** One row per Transfer log of the token. */
export const transfer = onchainTable('transfer', (t) => ({
  id: t.text().primaryKey(), // transaction hash and log index
  blockNumber: t.bigint().notNull(),
  transactionHash: t.hex().notNull(),
  logIndex: t.integer().notNull(),
  from: t.hex().notNull(),
  to: t.hex().notNull(),
  value: t.bigint().notNull(),
  gasUsed: t.bigint().notNull(), // from the transaction's receipt
}));

/** One row per contract the factory created. */
export const child = onchainTable('child', (t) => ({
  address: t.hex().primaryKey(),
  blockNumber: t.bigint().notNull(),
  transactionHash: t.hex().notNull(),
  creator: t.hex().notNull(),
  label: t.text().notNull(),
}));

/** One row per Poked log of a child: logs Ponder only fetches because of the factory. */
export const poke = onchainTable('poke', (t) => ({
  id: t.text().primaryKey(), // transaction hash and log index
  child: t.hex().notNull(),
  transactionHash: t.hex().notNull(),
  logIndex: t.integer().notNull(),
  by: t.hex().notNull(),
  amount: t.bigint().notNull(),
  total: t.bigint().notNull(),
}));

/** One row per call trace into the factory or a child (a transaction's top call or a nested one). */
export const call = onchainTable('call', (t) => ({
  id: t.text().primaryKey(), // transaction hash and the trace's depth-first index in it
  transactionHash: t.hex().notNull(),
  traceIndex: t.integer().notNull(),
  function: t.text().notNull(),
  type: t.text().notNull(),
  from: t.hex().notNull(),
  to: t.hex().notNull(),
  input: t.hex().notNull(),
  output: t.hex(),
  gasUsed: t.bigint().notNull(),
}));
