/**
 * JSON.stringify for answers that may be large, with two differences: it gives up (undefined) as
 * soon as the text passes a length, instead of building all of it first, and it yields to the event
 * loop every few milliseconds, so serialising a 20 MB eth_getLogs answer does not stall every other
 * connection for the whole time. The text is exactly JSON.stringify's.
 *
 * Containers are serialised piece by piece only where that pays: an array of primitives (a stack, the
 * topics of a log) or an object whose members are primitives or such arrays (a log, a struct log) goes
 * to JSON.stringify whole; larger structures are walked.
 */
import { Pacer } from '../../util/pace.ts';

class TooLong extends Error {}

/**
 * A value already serialised: written as is. A large answer made of many small objects (45,000 logs)
 * is cheaper to hold as their JSON texts: the objects die young instead of being walked by every
 * major collection while the answer waits to be written. Anything else that serialises it
 * (JSON.stringify) gets the same text through `toJSON`.
 */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

const isPrimitive = (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'function');

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return (
    (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/** Whether JSON.stringify may take `v` whole: no member is more than an array of primitives. */
function flat(v: unknown): boolean {
  if (isPrimitive(v)) return true;
  if (Array.isArray(v)) return v.length === 0 || isPrimitive(v[0]);
  if (!isPlainObject(v as object)) return true;
  for (const k in v as Record<string, unknown>) {
    const m = (v as Record<string, unknown>)[k];
    if (isPrimitive(m)) continue;
    if (Array.isArray(m) && (m.length === 0 || isPrimitive(m[0]))) continue;
    return false;
  }
  return true;
}

/**
 * The text of an object whose members are flat or already serialised (a JSON-RPC answer whose
 * result is a cached RawJson, such as a formatted block), built at once: nothing in it is long to
 * write, so the piecewise walk and its pacing would only add their own cost. Undefined when a member
 * is neither.
 */
function shallowText(o: object): string | undefined {
  if (Array.isArray(o) || !isPlainObject(o)) return undefined;
  let out = '{';
  for (const k in o) {
    const m = (o as Record<string, unknown>)[k];
    const text = m instanceof RawJson ? m.text : flat(m) ? JSON.stringify(m) : null;
    if (text === null) return undefined;
    if (text === undefined) continue; // undefined, a function or a symbol: left out, as JSON.stringify does
    out += (out.length > 1 ? ',' : '') + JSON.stringify(k) + ':' + text;
  }
  return out + '}';
}

export class BoundedJson {
  private readonly parts: string[] = [];
  private length = 0;
  private readonly pacer = new Pacer();
  private readonly max: number;

  /** `max`: most characters the text may have (Infinity: no bound). */
  private constructor(max: number) {
    this.max = max;
  }

  /** JSON.stringify(value), or undefined once the text would be longer than `max` characters. */
  static async stringify(value: unknown, max = Infinity): Promise<string | undefined> {
    // most answers (a balance, a hash, a block number) are one JSON.stringify with nothing to pace
    if (!(value instanceof RawJson) && flat(value)) {
      const s = JSON.stringify(value) ?? 'null';
      return s.length > max ? undefined : s;
    }
    const shallow = typeof value === 'object' && value !== null ? shallowText(value) : undefined;
    if (shallow !== undefined) return shallow.length > max ? undefined : shallow;
    const w = new BoundedJson(max);
    try {
      await w.value(value, true);
    } catch (err) {
      if (err instanceof TooLong) return undefined;
      throw err;
    }
    return w.parts.length === 1 ? w.parts[0] : w.parts.join('');
  }

  private push(s: string): void {
    this.length += s.length;
    if (this.length > this.max) throw new TooLong();
    this.parts.push(s);
  }

  /** Writes `v`; `inArray`: where JSON.stringify writes null for undefined, functions and symbols. */
  private async value(v: unknown, inArray: boolean): Promise<void> {
    if (v instanceof RawJson) {
      this.push(v.text);
      await this.pacer.tick();
      return;
    }
    if (flat(v)) {
      const s = JSON.stringify(v);
      this.push(s === undefined ? (inArray ? 'null' : '') : s);
      await this.pacer.tick();
      return;
    }
    if (Array.isArray(v)) {
      this.push('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.push(',');
        await this.value(v[i], true);
      }
      this.push(']');
      return;
    }
    const o = v as Record<string, unknown>;
    this.push('{');
    let first = true;
    for (const k in o) {
      const m = o[k];
      if (m === undefined || typeof m === 'function' || typeof m === 'symbol') continue;
      this.push((first ? '' : ',') + JSON.stringify(k) + ':');
      first = false;
      await this.value(m, false);
    }
    this.push('}');
  }
}
