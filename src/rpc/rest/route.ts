/** One REST route: an HTTP method, a path template with `{name}` segments, and its handler. */
import type { Logger } from '../../util/logger.ts';
import type { Json } from './json.ts';
import type { RestDeps } from './types.ts';

export interface RestRequest {
  /** Path segments named in the template, URL-decoded. */
  path: Record<string, string>;
  query: URLSearchParams;
  /** Lower-case header names, as node:http gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (POST routes only). */
  body: unknown;
}

export interface RestResult {
  body: Json;
  headers?: Record<string, string>;
}

export interface RestContext {
  deps: RestDeps;
  logger: Logger;
}

export interface Route {
  method: 'GET' | 'POST';
  template: string;
  handle(req: RestRequest, ctx: RestContext): Promise<RestResult>;
}

export interface CompiledRoute extends Route {
  pattern: RegExp;
  names: string[];
}

export function compile(route: Route): CompiledRoute {
  const names: string[] = [];
  const source = route.template
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return { ...route, pattern: new RegExp(`^${source}/?$`), names };
}
