/**
 * A dev chain's state as anvil dumps and loads it: `anvil_dumpState` answers the hex of the gzipped
 * JSON of every account, `anvil_loadState` takes that (or the plain JSON's hex, as anvil does) and
 * sets the accounts it holds, as one state edit.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { decodeStateDump, encodeStateDump } from '../../app/dev-state-dump.ts';
import { data } from '../codecs/hex.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { InvalidParamsError } from '../server/errors.ts';
import { ChainError } from '../../util/errors.ts';
import type { DevNode } from './backend.ts';

const GZIP_MAGIC = [0x1f, 0x8b];

export function dumpMethods(dev: DevNode): MethodTable {
  return {
    anvil_dumpState: method([], async () => data(gzipSync(encodeStateDump(await dev.state.dump())))),
    anvil_loadState: method([p.data], async (bytes) => {
      let text: string;
      try {
        const gzipped = bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1];
        text = (gzipped ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
      } catch {
        throw new InvalidParamsError('the state is not gzip-compressed JSON');
      }
      try {
        await dev.state.load(decodeStateDump(text));
      } catch (err) {
        if (err instanceof ChainError && err.code === 'BAD_DEV_RECORD')
          throw new InvalidParamsError(err.message);
        throw err;
      }
      return true;
    }),
  };
}
