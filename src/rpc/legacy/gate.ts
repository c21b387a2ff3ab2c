/**
 * The allowlist of the deprecated chain_/chain2_ surface (`[evm] enabled_legacy_chain_apis`, spec
 * "Legacy extension methods" and the blocked-legacy-call error). The gate covers every name with
 * either prefix, not only the methods that exist, so a new or misspelt legacy name is refused with
 * the same deprecation text instead of looking like an ordinary unknown method.
 */
import { MethodNotFoundError, RpcError } from '../server/errors.ts';
import type { MethodGate } from '../server/dispatcher.ts';

export const LEGACY_ERROR_DATA = 'legacy_chain_deprecated';
export const DEPRECATION_HEADER = 'Chain-Legacy-RPC-Deprecation';
export const DEPRECATION_TEXT =
  'All chain_* and chain2_* JSON-RPC methods are deprecated and scheduled for removal; migrate to eth_* and debug_*.';

/** The response headers of an HTTP answer that served an allowlisted legacy method. */
export const LEGACY_HTTP_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  [DEPRECATION_HEADER]: DEPRECATION_TEXT,
});

export function isLegacyName(name: string): boolean {
  // charCodeAt first: eth_* names fail on the first character without a string comparison.
  return name.charCodeAt(0) === 99 /* c */ && (name.startsWith('chain_') || name.startsWith('chain2_'));
}

class LegacyRefusal extends RpcError {
  constructor(message: string) {
    super('RPC_METHOD_NOT_FOUND', message, LEGACY_ERROR_DATA);
  }
}

export function blockedMessage(name: string): string {
  return (
    `the method ${name} is not enabled on this node: the chain_* and chain2_* JSON-RPC methods are ` +
    'deprecated and scheduled for removal (prefer eth_* and debug_*); to use it anyway, add ' +
    `"${name}" to enabled_legacy_chain_apis under [evm] in app.toml`
  );
}

/** An allowlisted name that no legacy method has (a typo, or the wrong case): adding it cannot help. */
export function unknownLegacyMessage(name: string): string {
  return (
    `the method ${name} is not enabled on this node: no chain_* or chain2_* method has this name ` +
    '(names are case-sensitive), and the chain_* and chain2_* JSON-RPC methods are deprecated and ' +
    'scheduled for removal (prefer eth_* and debug_*)'
  );
}

/**
 * The HTTP gate: the allowlist is compared case-insensitively after trimming both sides, so an
 * app.toml entry " CHAIN_getEvmAddress " enables chain_getEVMAddress. `known`: the legacy methods
 * this node implements; any other name with a legacy prefix is blocked with the same code and data,
 * whatever the list says (a call is dispatched by its exact name).
 */
export function legacyGate(allowlist: readonly string[], known: Iterable<string>): MethodGate {
  const allowed = new Set(allowlist.map((n) => n.trim().toLowerCase()).filter((n) => n !== ''));
  const implemented = new Set(known);
  return {
    covers: isLegacyName,
    servedHeaders: LEGACY_HTTP_HEADERS,
    refusal: (name) => {
      if (!allowed.has(name.trim().toLowerCase())) return new LegacyRefusal(blockedMessage(name));
      return implemented.has(name) ? undefined : new LegacyRefusal(unknownLegacyMessage(name));
    },
  };
}

/** The WebSocket side: the legacy surface is HTTP-only, so every legacy name is refused there. */
export const webSocketLegacyGate: MethodGate = {
  covers: isLegacyName,
  refusal: (name) =>
    new MethodNotFoundError(
      `the method ${name} is not available over WebSocket: the deprecated chain_* and chain2_* methods are served over HTTP only`,
    ),
};
