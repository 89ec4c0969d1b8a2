import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestLogLevel } from './request-log-level';

const request = (method: string): IncomingMessage => ({ method }) as IncomingMessage;
const response = (statusCode: number): ServerResponse => ({ statusCode }) as ServerResponse;

describe('requestLogLevel', () => {
  it('logs successful reads at debug, whatever their status', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS'])
      for (const status of [200, 204, 304])
        expect({ method, status, level: requestLogLevel(request(method), response(status)) }).toEqual({
          method,
          status,
          level: 'debug',
        });
  });

  it('logs what changes something at info', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(requestLogLevel(request(method), response(201))).toBe('info');
  });

  it('logs a refused request at warn and a failed one at error, reads included', () => {
    expect(requestLogLevel(request('GET'), response(404))).toBe('warn');
    expect(requestLogLevel(request('POST'), response(400))).toBe('warn');
    expect(requestLogLevel(request('GET'), response(503))).toBe('error');
    expect(requestLogLevel(request('GET'), response(200), new Error('stream cut'))).toBe('error');
  });
});
