import { Writable } from 'node:stream';
import pino from 'pino';
import { censorSecrets } from './censor-secrets';
import { processLoggerOptions } from './process-logger';

function logLines(write: (logger: pino.Logger) => void): string {
  let output = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      output += chunk.toString();
      done();
    },
  });
  write(pino(processLoggerOptions('api', 'info'), sink));
  return output;
}

describe('secrets in log lines', () => {
  it('redacts fields named token, secret or password at any depth', () => {
    const censored = censorSecrets({
      workerId: 'w-1',
      registrationToken: 'rt-abc',
      nested: { clientSecret: 's3', list: [{ password: 'pw', queue: 'gpu' }] },
    });
    expect(censored).toEqual({
      workerId: 'w-1',
      registrationToken: '[redacted]',
      nested: { clientSecret: '[redacted]', list: [{ password: '[redacted]', queue: 'gpu' }] },
    });
  });

  it('keeps secrets out of what the process logger writes', () => {
    const output = logLines((logger) =>
      logger.info({ executionId: 'e-1', accessToken: 'jwt-value', db: { password: 'pw' } }, 'started'),
    );
    expect(output).toContain('"executionId":"e-1"');
    expect(output).not.toContain('jwt-value');
    expect(output).not.toContain('"pw"');
  });

  it('redacts the authorization header of a logged request', () => {
    const output = logLines((logger) =>
      logger.info({ req: { method: 'GET', url: '/api/v1/flows', headers: { authorization: 'Bearer abc.def' } } }, 'request'),
    );
    expect(output).toContain('/api/v1/flows');
    expect(output).not.toContain('abc.def');
  });

  it('writes JSON lines with the role and a level name', () => {
    const line = JSON.parse(logLines((logger) => logger.warn('queue paused')));
    expect(line).toMatchObject({ level: 'warn', role: 'api', msg: 'queue paused' });
  });
});
