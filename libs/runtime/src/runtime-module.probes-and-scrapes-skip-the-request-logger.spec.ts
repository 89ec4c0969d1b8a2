import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Writable } from 'node:stream';
import { Controller, Get, HttpCode, INestApplication, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino from 'pino';
import type { CommonConfig } from './config/load-config';
import { RuntimeModule } from './runtime.module';

@Controller('api/v1/echo')
class EchoController {
  @Get()
  echo(): { ok: boolean } {
    return { ok: true };
  }

  @Post()
  @HttpCode(200)
  post(): { ok: boolean } {
    return { ok: true };
  }
}

/**
 * The request logger keeps each request's logger in an AsyncLocalStorage; the
 * first `run` of one turns on async hooks for the whole process, so every
 * promise after it costs 2-3 times as much. Kubernetes probes and Prometheus
 * scrapes reach every role every few seconds, so they must never enter it.
 */
describe('runtime module: probes and scrapes skip the request logger', () => {
  const lines: Array<Record<string, unknown>> = [];
  let app: INestApplication;
  let baseUrl: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = {
      role: 'controller',
      http: { host: '127.0.0.1', port: 0 },
      logLevel: 'info',
      readyTimeoutMs: 1_000,
    } as CommonConfig;
    @Module({ imports: [RuntimeModule.forRoot(config, pino({ level: 'info' }, sink))], controllers: [EchoController] })
    class ProbeSpecModule {}
    app = await NestFactory.create(ProbeSpecModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    jest.restoreAllMocks();
  });

  it('answers /health/live, /health/ready and /metrics without a request context or an access log line', async () => {
    const contexts = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    for (const path of ['/health/live', '/health/ready', '/metrics']) {
      const response = await fetch(`${baseUrl}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      await response.text();
    }
    expect(contexts).not.toHaveBeenCalled();
    expect(lines.filter((line) => typeof line['req'] === 'object')).toEqual([]);
  });

  it('still logs a user request that changes something, with its request context; a read only at debug', async () => {
    const contexts = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const read = await fetch(`${baseUrl}/api/v1/echo`);
    expect(await read.json()).toEqual({ ok: true });
    const response = await fetch(`${baseUrl}/api/v1/echo`, { method: 'POST' });
    expect(await response.json()).toEqual({ ok: true });
    expect(contexts).toHaveBeenCalled();
    await new Promise((resolve) => setImmediate(resolve));
    const logged = lines
      .filter((line) => typeof line['req'] === 'object')
      .map((line) => `${(line['req'] as { method?: string }).method} ${(line['req'] as { url?: string }).url}`);
    expect(logged).toEqual(['POST /api/v1/echo']);
  });
});
