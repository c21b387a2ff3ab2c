/**
 * The operator's secp256k1 key, read from a file the operator names, never from the command line
 * (where shell history and the process list would keep it): a hex private key, or a BIP-39 mnemonic
 * derived on an HD path (the dev accounts' path m/44'/60'/0'/0/n by default).
 */
import { readFileSync } from 'node:fs';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import {
  type Account,
  accountFromPrivateKey,
  toAccAddress,
  toChecksumAddress,
  toValoperAddress,
} from '../../crypto/accounts.ts';
import { ChainError } from '../../util/errors.ts';

export const DEFAULT_HD_PATH = "m/44'/60'/0'/0/0";

export interface KeySource {
  keyFile?: string;
  mnemonicFile?: string;
  hdPath?: string;
}

function readSecret(path: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new ChainError('BAD_ARGUMENT', `${flag} ${path}: ${(err as Error).message}`);
  }
}

export function loadOperatorKey(src: KeySource): Account {
  if ((src.keyFile === undefined) === (src.mnemonicFile === undefined))
    throw new ChainError(
      'BAD_ARGUMENT',
      'name the operator key with exactly one of --from-key-file <path> or --from-mnemonic-file <path>',
    );
  if (src.keyFile !== undefined) {
    if (src.hdPath !== undefined)
      throw new ChainError('BAD_ARGUMENT', '--hd-path applies to --from-mnemonic-file only');
    const hex = readSecret(src.keyFile, '--from-key-file').replace(/^0x/i, '');
    if (!/^[0-9a-fA-F]{64}$/.test(hex))
      throw new ChainError(
        'BAD_ARGUMENT',
        `--from-key-file ${src.keyFile}: expected a secp256k1 private key as 64 hex digits (0x optional)`,
      );
    const key = Uint8Array.from(Buffer.from(hex, 'hex'));
    if (!secp256k1.utils.isValidSecretKey(key))
      throw new ChainError(
        'BAD_ARGUMENT',
        `--from-key-file ${src.keyFile}: not a valid secp256k1 private key`,
      );
    return accountFromPrivateKey(key);
  }
  const mnemonic = readSecret(src.mnemonicFile!, '--from-mnemonic-file').split(/\s+/).join(' ');
  if (!validateMnemonic(mnemonic, wordlist))
    throw new ChainError(
      'BAD_ARGUMENT',
      `--from-mnemonic-file ${src.mnemonicFile}: not a valid BIP-39 English mnemonic (checksum or word list)`,
    );
  const path = src.hdPath ?? DEFAULT_HD_PATH;
  let key: Uint8Array | null;
  try {
    key = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(path).privateKey;
  } catch (err) {
    throw new ChainError('BAD_ARGUMENT', `--hd-path ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  if (!key) throw new ChainError('BAD_ARGUMENT', `--hd-path ${JSON.stringify(path)} derives no private key`);
  return accountFromPrivateKey(key);
}

/** The three addresses of one key: the account that pays, the validator it operates, and its EVM face. */
export function keyAddresses(account: Account) {
  return {
    address: toAccAddress(account.cosmosAddress),
    valoper: toValoperAddress(account.cosmosAddress),
    evm_address: toChecksumAddress(account.evmAddress),
  };
}
