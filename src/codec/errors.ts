import { ChainError } from '../util/errors.ts';

/** A value cannot be encoded or decoded canonically (out of range, wrong length, truncated bytes). */
export class CodecError extends ChainError {
  constructor(message: string) {
    super('CODEC_INVALID', message);
  }
}
