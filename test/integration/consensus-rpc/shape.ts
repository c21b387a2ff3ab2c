/**
 * Exact-shape assertions for JSON answers: the pattern has exactly the keys the answer must have;
 * a leaf is either a literal (compared strictly) or a RegExp the string must match in full.
 */
import assert from 'node:assert/strict';

export const HASH = /^[0-9A-F]{64}$/;
export const ADDRESS = /^[0-9A-F]{40}$/;
export const INT = /^(0|[1-9]\d*)$/;
export const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Go's RFC3339Nano: UTC, fraction of 1-9 digits without trailing zeros, or none. */
export const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{0,8}[1-9])?Z$/;

export type Pattern = RegExp | null | boolean | number | string | Pattern[] | { [k: string]: Pattern };

export function assertShape(actual: unknown, pattern: Pattern, path = '$'): void {
  if (pattern instanceof RegExp) {
    assert.equal(
      typeof actual,
      'string',
      `${path}: expected a string matching ${pattern}, got ${JSON.stringify(actual)}`,
    );
    assert.match(actual as string, pattern, `${path}: ${JSON.stringify(actual)} does not match ${pattern}`);
  } else if (Array.isArray(pattern)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array, got ${JSON.stringify(actual)}`);
    assert.equal(
      actual.length,
      pattern.length,
      `${path}: expected ${pattern.length} elements, got ${actual.length}`,
    );
    pattern.forEach((p, i) => assertShape(actual[i], p, `${path}[${i}]`));
  } else if (pattern !== null && typeof pattern === 'object') {
    assert.ok(
      actual !== null && typeof actual === 'object' && !Array.isArray(actual),
      `${path}: expected an object`,
    );
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(pattern).sort(), `${path}: keys differ`);
    for (const [k, p] of Object.entries(pattern))
      assertShape((actual as Record<string, unknown>)[k], p, `${path}.${k}`);
  } else {
    assert.equal(
      actual,
      pattern,
      `${path}: expected ${JSON.stringify(pattern)}, got ${JSON.stringify(actual)}`,
    );
  }
}
