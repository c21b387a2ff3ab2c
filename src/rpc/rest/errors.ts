/**
 * Errors of the REST API. The body is grpc-gateway's `{code, message, details: []}` with the gRPC
 * status code, and the HTTP status is the one grpc-gateway derives from that code, so clients
 * written against a Cosmos SDK node read failures the same way.
 */
import { ChainError } from '../../util/errors.ts';

/** gRPC status codes used here (google.rpc.Code). */
export const GrpcCode = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

/** grpc-gateway's runtime.HTTPStatusFromCode for the codes above. */
const HTTP_STATUS: Record<GrpcCode, number> = {
  2: 500,
  3: 400,
  5: 404,
  8: 429,
  12: 501,
  13: 500,
};

const CODE_NAME = Object.fromEntries(Object.entries(GrpcCode).map(([name, code]) => [code, name])) as Record<
  GrpcCode,
  string
>;

export class RestError extends ChainError {
  readonly grpcCode: GrpcCode;
  readonly httpStatus: number;
  constructor(grpcCode: GrpcCode, message: string, httpStatus = HTTP_STATUS[grpcCode]) {
    super(`REST_${CODE_NAME[grpcCode]}`, message);
    this.grpcCode = grpcCode;
    this.httpStatus = httpStatus;
  }
}

export const invalidArgument = (message: string) => new RestError(GrpcCode.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new RestError(GrpcCode.NOT_FOUND, message);

/** The gateway's JSON error body. */
export function errorBody(e: RestError): { code: number; message: string; details: [] } {
  return { code: e.grpcCode, message: e.message, details: [] };
}
