import * as grpc from '@grpc/grpc-js';
import { ErrorCode, type ControllerFrame } from '@lanner/frames';
import { REFUSAL_STATUSES, refusalError, type RefusalKind } from './grpc-refusals';
import type { WorkerCall } from './worker-fleet';
import { refuse } from './worker-streams';

/** A worker stream that records what the controller writes and the final status it ends with. */
function recordingStream(): { call: WorkerCall; frames: ControllerFrame[]; statuses: unknown[] } {
  const frames: ControllerFrame[] = [];
  const statuses: unknown[] = [];
  const call = {
    write: (frame: ControllerFrame) => frames.push(frame),
    emit: (event: string, status: unknown) => event === 'error' && statuses.push(status),
  } as unknown as WorkerCall;
  return { call, frames, statuses };
}

// What a worker is told for each refusal: workers act on the status (UNAUTHENTICATED: register
// again; UNAVAILABLE: retry later or elsewhere; FAILED_PRECONDITION / INVALID_ARGUMENT: fix the
// worker), so each refusal has exactly one status and one StreamError code.
const EXPECTED: [RefusalKind, grpc.status, ErrorCode][] = [
  ['unauthenticated', grpc.status.UNAUTHENTICATED, ErrorCode.UNAUTHENTICATED],
  ['unavailable', grpc.status.UNAVAILABLE, ErrorCode.INTERNAL],
  ['out-of-order-frame', grpc.status.FAILED_PRECONDITION, ErrorCode.INVALID_FRAME],
  ['invalid-argument', grpc.status.INVALID_ARGUMENT, ErrorCode.INVALID_FRAME],
  ['unsupported-protocol', grpc.status.FAILED_PRECONDITION, ErrorCode.UNSUPPORTED_PROTOCOL_VERSION],
  ['unfit-configuration', grpc.status.FAILED_PRECONDITION, ErrorCode.INTERNAL],
  ['internal', grpc.status.INTERNAL, ErrorCode.INTERNAL],
];

describe('the refusals of the controller', () => {
  it('covers every kind of refusal in one table', () => {
    expect(Object.keys(REFUSAL_STATUSES).sort()).toEqual(EXPECTED.map(([kind]) => kind).sort());
  });

  it.each(EXPECTED)('ends a stream refused as %s with status %s after a fatal StreamError %s', (kind, status, code) => {
    const stream = recordingStream();
    refuse(stream.call, kind, 'why, in words');
    expect(stream.frames).toEqual([{ frame: { $case: 'error', value: { code, message: 'why, in words', fatal: true } } }]);
    expect(stream.statuses).toEqual([{ code: status, details: 'why, in words' }]);
  });

  it.each(EXPECTED)('answers a unary call refused as %s with status %s', (kind, status) => {
    expect(refusalError(kind, 'why')).toEqual({ code: status, details: 'why' });
  });
});
