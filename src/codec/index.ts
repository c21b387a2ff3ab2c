/** Canonical CometBFT encodings and hashes (block header, data, validators, commit, votes). */
export * from './block-header.ts';
export * from './cometbft.ts';
export * from './commit.ts';
export * from './errors.ts';
export * from './merkle.ts';
export * from './proto.ts';
export * from './validators.ts';
