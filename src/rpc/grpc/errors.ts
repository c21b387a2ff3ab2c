/**
 * A failed gRPC call: the status code and message the client receives. Handlers and the query
 * adapter throw it; the server turns it into the call's status, anything else into INTERNAL.
 */
import { status } from '@grpc/grpc-js';
import { ChainError } from '../../util/errors.ts';

export class GrpcStatusError extends ChainError {
  readonly grpcCode: status;
  constructor(grpcCode: status, message: string) {
    super(`GRPC_${status[grpcCode]}`, message);
    this.grpcCode = grpcCode;
  }
}

export const invalidArgument = (message: string) => new GrpcStatusError(status.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new GrpcStatusError(status.NOT_FOUND, message);
