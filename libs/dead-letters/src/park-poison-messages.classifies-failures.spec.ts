import { InvalidQueueMessageError, NewerSchemaVersionError } from '@lanner/frames';
import { DatabaseUnavailable } from '@lanner/repository';
import { describeHandlerFailure, handlerFailureKind } from './park-poison-messages';

/** Shaped as PostgreSQL errors reach Lanner through Prisma's pg adapter (the SQLSTATE under `cause.originalCode`). */
function databaseError(sqlState: string, message: string): Error {
  return Object.assign(new Error(`Raw query failed. Code: \`${sqlState}\`. Message: \`${message}\``), {
    code: 'P2010',
    cause: { originalCode: sqlState, originalMessage: message },
  });
}

describe('which handler failures park a message, and what the reason says', () => {
  it('parks what the database refuses for good, and a payload no schema accepts', () => {
    expect(handlerFailureKind(databaseError('22P05', 'unsupported Unicode escape sequence'))).toBe('lasting');
    expect(handlerFailureKind(databaseError('22021', 'invalid byte sequence for encoding "UTF8": 0x00'))).toBe('lasting');
    expect(
      handlerFailureKind(new InvalidQueueMessageError('lanner.executor', [{ path: 'payload.taskRunId', message: 'Required' }])),
    ).toBe('lasting');
  });

  it('never parks an outage or a message from a newer Lanner: those are retried', () => {
    expect(handlerFailureKind(new DatabaseUnavailable('cannot reach the database'))).toBe('passing');
    expect(handlerFailureKind(databaseError('57P01', 'terminating connection due to administrator command'))).toBe('passing');
    expect(handlerFailureKind(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(
      'passing',
    );
    const broker = new Error('The group is rebalancing');
    broker.name = 'KafkaJSProtocolError';
    expect(handlerFailureKind(broker)).toBe('passing');
    expect(handlerFailureKind(new NewerSchemaVersionError('lanner.executor', 'task-run.result', 9, 1))).toBe('passing');
  });

  it('takes anything else as unknown (retried a while, then parked)', () => {
    expect(handlerFailureKind(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe('unknown');
  });

  it("names the database's reason without the statement, and stays one storable line", () => {
    expect(describeHandlerFailure(databaseError('22P05', 'unsupported Unicode escape sequence'))).toBe(
      'the database refused a value: unsupported Unicode escape sequence',
    );
    // As Prisma reports a refused value outside raw queries: no message of PostgreSQL's, its own starts blank and names files.
    const prismaShaped = Object.assign(
      new Error('\nInvalid `prisma.execution.findFirst()` invocation in\n/srv/lanner/libs/repository/src/x.ts:12:5'),
      {
        code: 'P2010',
        cause: { originalCode: '22021', originalMessage: '' },
      },
    );
    expect(describeHandlerFailure(prismaShaped)).toBe('the database refused a value it cannot store');
    const odd = new Error('first line \u0000\n    at secret/path/file.ts:10:5');
    expect(describeHandlerFailure(odd)).toBe('Error: first line \uFFFD');
    expect(describeHandlerFailure(new Error('x'.repeat(2000))).length).toBeLessThanOrEqual(501 + 'Error: '.length);
  });
});
