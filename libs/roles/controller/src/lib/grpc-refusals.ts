import * as grpc from '@grpc/grpc-js';
import { ErrorCode } from '@lanner/frames';

/**
 * Why the controller refuses a worker's call or stream. Each kind has one gRPC
 * status and, on a worker stream, one ErrorCode in the fatal StreamError frame
 * sent before that status: the one table every refusal of the controller goes through
 * (as HTTP refusals go through the API's one exception filter).
 */
export type RefusalKind =
  /** The caller's identity is not proven: no, a bad, expired, revoked or foreign token or certificate. */
  | 'unauthenticated'
  /** The controller cannot serve now (shutting down, database unreadable, topology not seeded): try again later or elsewhere. */
  | 'unavailable'
  /** A frame out of order (the first frame is not hello). */
  | 'out-of-order-frame'
  /** A frame whose content is invalid (hello.slots < 1), or a request field that is. */
  | 'invalid-argument'
  /** The worker speaks an incompatible protocol version. */
  | 'unsupported-protocol'
  /** The worker group's configuration cannot be applied to this worker. */
  | 'unfit-configuration'
  /** Anything else: the controller failed. */
  | 'internal';

export interface RefusalStatus {
  readonly status: grpc.status;
  /** The code of the StreamError frame sent on a worker stream before the status. */
  readonly code: ErrorCode;
}

export const REFUSAL_STATUSES: Readonly<Record<RefusalKind, RefusalStatus>> = {
  unauthenticated: { status: grpc.status.UNAUTHENTICATED, code: ErrorCode.UNAUTHENTICATED },
  unavailable: { status: grpc.status.UNAVAILABLE, code: ErrorCode.INTERNAL },
  'out-of-order-frame': { status: grpc.status.FAILED_PRECONDITION, code: ErrorCode.INVALID_FRAME },
  'invalid-argument': { status: grpc.status.INVALID_ARGUMENT, code: ErrorCode.INVALID_FRAME },
  'unsupported-protocol': { status: grpc.status.FAILED_PRECONDITION, code: ErrorCode.UNSUPPORTED_PROTOCOL_VERSION },
  'unfit-configuration': { status: grpc.status.FAILED_PRECONDITION, code: ErrorCode.INTERNAL },
  internal: { status: grpc.status.INTERNAL, code: ErrorCode.INTERNAL },
};

/** The gRPC status (and stream ErrorCode) of a refusal. */
export function refusalStatus(kind: RefusalKind): RefusalStatus {
  return REFUSAL_STATUSES[kind];
}

/** A unary call's error: the refusal's status with the words the worker's operator reads. */
export function refusalError(kind: RefusalKind, details: string): Partial<grpc.StatusObject> {
  return { code: refusalStatus(kind).status, details };
}
