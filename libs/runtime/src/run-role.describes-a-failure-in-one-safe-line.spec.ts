import { describeProcessFailure } from './run-role';

describe('what a start or shutdown failure log line says', () => {
  it('names the failure and its code, without the stack', () => {
    const error = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE' });
    const described = describeProcessFailure(error);
    expect(described).toEqual({ message: 'listen EADDRINUSE: address already in use 127.0.0.1:8080', code: 'EADDRINUSE' });
    expect(JSON.stringify(described)).not.toContain('run-role');
  });

  it('keeps only the first line, where clients put a code frame or a query below', () => {
    const error = new Error(
      '\nInvalid `prisma.flow.findMany()` invocation:\n\n  12 const flows = await prisma.flow.findMany({ where: { tenantId } })\nSELECT * FROM flows',
    );
    expect(describeProcessFailure(error)).toEqual({ message: 'Invalid `prisma.flow.findMany()` invocation:' });
  });

  it('masks the password of a URL in the message', () => {
    const error = new Error('cannot reach postgresql://lanner:s3cr3t-pass@db.internal:5432/lanner and amqp://user:other@host');
    const { message } = describeProcessFailure(error);
    expect(message).toBe('cannot reach postgresql://lanner:[redacted]@db.internal:5432/lanner and amqp://user:[redacted]@host');
  });

  it('drops a code that is not a short identifier, and names an error without a message by its type', () => {
    expect(describeProcessFailure(Object.assign(new TypeError(''), { code: 'not a code: see /etc/secret' }))).toEqual({
      message: 'TypeError',
    });
    expect(describeProcessFailure('thrown text')).toEqual({ message: 'thrown text' });
  });
});
