/** A JSON value, as the Cosmos-facing writers (CometBFT's JSON, grpc-gateway's) build their answers. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
