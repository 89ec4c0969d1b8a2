import { ErrorCode, Hello, JobResult, PROTOCOL_VERSION, type JobRef } from '@lanner/frames';
import { helloVerdict, nextSession, openSession, type HeldJobs } from './index';
import { TIMINGS as timings, workerIdentity } from './test-support/session-fixtures';

const session = openSession(workerIdentity(null), timings, 0);

/** One job held (`run-1`, started), one finished a moment ago (`run-2`). */
const jobs: HeldJobs = {
  size: 1,
  held: (ref: JobRef) => (ref.taskRunId === 'run-1' ? { started: true } : undefined),
  known: (ref: JobRef) =>
    ref.taskRunId === 'run-1' ? { finished: false } : ref.taskRunId === 'run-2' ? { finished: true } : undefined,
  entries: () => [['run-1:1', { started: true }] as const],
};
const result = (taskRunId: string, credit: number) =>
  nextSession(
    session,
    { kind: 'frame', frame: { $case: 'jobResult', value: JobResult.fromPartial({ taskRunId, attempt: 1, credit }) }, jobs },
    1,
  ).effects;

describe('the credit and drain rules of a worker stream', () => {
  it('grants the slots of a Credit frame', () => {
    const { effects } = nextSession(session, { kind: 'frame', frame: { $case: 'credit', value: { slots: 3 } }, jobs }, 1);
    expect(effects).toEqual([{ kind: 'grant-credit', slots: 3 }]);
  });

  it("grants a result's credit after the result is published, even none (its slot frees)", () => {
    expect(result('run-1', 2).map((effect) => effect.kind)).toEqual(['publish-result', 'grant-credit']);
    expect(result('run-1', 0)[1]).toEqual({ kind: 'grant-credit', slots: 0 });
  });

  it("grants a duplicate result's credit and publishes nothing", () => {
    expect(result('run-2', 1)).toEqual([{ kind: 'grant-credit', slots: 1 }]);
    expect(result('run-2', 0)).toEqual([]);
  });

  it("tells the worker of a result of a job it never held here, and still counts the result's credit", () => {
    const effects = result('run-9', 1);
    expect(effects[0]).toEqual({ kind: 'grant-credit', slots: 1 });
    expect(effects[1]).toMatchObject({
      kind: 'send',
      frame: {
        $case: 'error',
        value: { code: ErrorCode.UNKNOWN_JOB, message: 'this worker holds no job run-9:1 on this controller' },
      },
    });
  });

  it('drains on a Draining frame, with its reason', () => {
    const { effects } = nextSession(
      session,
      { kind: 'frame', frame: { $case: 'draining', value: { reason: 'upgrade', gracePeriod: undefined } }, jobs },
      1,
    );
    expect(effects).toEqual([{ kind: 'drain', reason: 'upgrade' }]);
  });

  it('refuses a second Hello without ending the stream', () => {
    const { effects } = nextSession(session, { kind: 'frame', frame: { $case: 'hello', value: Hello.fromPartial({}) }, jobs }, 1);
    expect(effects).toEqual([
      {
        kind: 'send',
        frame: {
          $case: 'error',
          value: { code: ErrorCode.INVALID_FRAME, message: 'hello was already received on this stream', fatal: false },
        },
      },
    ]);
  });
});

describe('the first frame of a stream', () => {
  const hello = (fields: Partial<Hello>) => helloVerdict({ $case: 'hello', value: Hello.fromPartial({ ...fields }) });

  it('must be a Hello', () => {
    expect(helloVerdict({ $case: 'credit', value: { slots: 1 } })).toEqual({
      refusal: 'out-of-order-frame',
      reason: 'the first frame must be hello, got credit',
    });
  });

  it('must speak the major of this protocol', () => {
    expect(hello({ protocolVersion: { major: PROTOCOL_VERSION.major + 1, minor: 0 }, slots: 1 })).toMatchObject({
      refusal: 'unsupported-protocol',
    });
  });

  it('must offer at least one slot', () => {
    expect(hello({ protocolVersion: { ...PROTOCOL_VERSION }, slots: 0 })).toEqual({
      refusal: 'invalid-argument',
      reason: 'hello.slots must be at least 1, got 0',
    });
    expect(hello({ protocolVersion: { ...PROTOCOL_VERSION }, slots: 2 })).toHaveProperty('hello.slots', 2);
  });
});
