/**
 * Route parameters, from either form CometBFT accepts:
 *  - URI (GET `/block?height=5`): numbers bare or quoted, strings quoted (`path="/a/b"`; bare is also
 *    accepted), `[]byte` as `0x`-hex or a quoted literal, booleans `true`/`false`;
 *  - JSON-RPC (POST `/`): `params` as an object by name, or an array in the route's declared order;
 *    int64 as a number or a decimal string, `[]byte` as base64, `HexBytes` as hex.
 * Every failure is an InvalidParamsError naming the parameter and what was expected.
 */
import { fromHex, utf8 } from '../../primitives/bytes.ts';
import { InvalidParamsError } from './errors.ts';

export type ParamSource = { form: 'uri'; values: Map<string, string> } | { form: 'json'; values: unknown };

export class Params {
  private readonly form: 'uri' | 'json';
  private readonly values: Map<string, unknown>;

  /** `names`: the route's parameters, in positional order. Unknown names are refused. */
  constructor(source: ParamSource, names: readonly string[]) {
    this.form = source.form;
    this.values = new Map();
    if (source.form === 'uri') {
      for (const [k, v] of source.values) if (v !== '') this.values.set(k, v);
    } else if (Array.isArray(source.values)) {
      if (source.values.length > names.length)
        throw new InvalidParamsError(
          `expected at most ${names.length} positional params (${names.join(', ') || 'none'}), got ${source.values.length}`,
        );
      source.values.forEach((v, i) => {
        if (v !== null && v !== undefined) this.values.set(names[i], v);
      });
    } else if (source.values !== null && source.values !== undefined) {
      if (typeof source.values !== 'object')
        throw new InvalidParamsError('params must be an object or an array');
      for (const [k, v] of Object.entries(source.values))
        if (v !== null && v !== undefined) this.values.set(k, v);
    }
    for (const k of this.values.keys()) {
      if (!names.includes(k))
        throw new InvalidParamsError(
          `unknown parameter ${JSON.stringify(k)} (this route takes: ${names.join(', ') || 'none'})`,
        );
    }
  }

  /** A JSON-RPC int64 (number or decimal string) or a URI number; must be a safe integer. */
  int(name: string): number | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    const s = typeof v === 'string' ? unquote(v) : v;
    if (typeof s === 'number' && Number.isSafeInteger(s)) return s;
    if (typeof s === 'string' && /^-?\d+$/.test(s) && Number.isSafeInteger(Number(s))) return Number(s);
    throw new InvalidParamsError(`${name}: expected an integer, got ${JSON.stringify(v)}`);
  }

  string(name: string): string | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'string')
      throw new InvalidParamsError(`${name}: expected a string, got ${JSON.stringify(v)}`);
    return this.form === 'uri' ? unquote(v) : v;
  }

  bool(name: string): boolean | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === '"true"') return true;
    if (v === 'false' || v === '"false"') return false;
    throw new InvalidParamsError(`${name}: expected true or false, got ${JSON.stringify(v)}`);
  }

  /** Go `[]byte`: base64 in JSON; `0x`-hex or a quoted literal in a URI. */
  bytes(name: string): Uint8Array | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'string')
      throw new InvalidParamsError(`${name}: expected a string, got ${JSON.stringify(v)}`);
    if (this.form === 'uri') {
      if (/^0x/i.test(v)) return hex(name, v);
      if (isQuoted(v)) return utf8(unquote(v));
      throw new InvalidParamsError(
        `${name}: expected 0x-prefixed hex or a quoted string, got ${JSON.stringify(v)}`,
      );
    }
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0)
      throw new InvalidParamsError(`${name}: expected base64, got ${JSON.stringify(v)}`);
    return new Uint8Array(Buffer.from(v, 'base64'));
  }

  /** CometBFT `HexBytes`: hex with or without 0x, in either form. */
  hexBytes(name: string): Uint8Array | undefined {
    const v = this.values.get(name);
    if (v === undefined) return undefined;
    if (typeof v !== 'string')
      throw new InvalidParamsError(`${name}: expected a hex string, got ${JSON.stringify(v)}`);
    return hex(name, this.form === 'uri' ? unquote(v) : v);
  }
}

function isQuoted(s: string): boolean {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"');
}

function unquote(s: string): string {
  return isQuoted(s) ? s.slice(1, -1) : s;
}

function hex(name: string, s: string): Uint8Array {
  try {
    return fromHex(s);
  } catch {
    throw new InvalidParamsError(`${name}: expected hex, got ${JSON.stringify(s)}`);
  }
}
