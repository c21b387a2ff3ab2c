/** Every consensus RPC route by name (the GET path without `/`, and the JSON-RPC method). */
import { abciQueryRoute } from './abci-query.ts';
import type { Route } from './route.ts';
import { blockRoutes } from './routes-blocks.ts';
import { infoRoutes } from './routes-info.ts';
import { txRoutes } from './routes-txs.ts';

export const ROUTES: ReadonlyMap<string, Route> = new Map(
  Object.entries({ ...infoRoutes, ...blockRoutes, ...txRoutes, abci_query: abciQueryRoute }),
);
