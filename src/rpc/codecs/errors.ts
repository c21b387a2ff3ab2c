/** Errors of the wire codecs. */
import { ChainError } from '../../util/errors.ts';

/**
 * A parameter value that cannot be decoded. The message is the problem only ("hex string without 0x
 * prefix"); the dispatcher prefixes the argument index, and maps the class to -32602.
 */
export class CodecError extends ChainError {
  constructor(message: string) {
    super('RPC_INVALID_PARAM', message);
  }
}
