import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { parseFlow, type ParseFlowResult } from '@lanner/model';

/** Sources up to this size are parsed in place: a few milliseconds, less than a hop to the thread. */
export const INLINE_PARSE_MAX_BYTES = 64 * 1024;

interface Pending {
  resolve(result: ParseFlowResult): void;
  reject(error: Error): void;
}

/**
 * Parses flow sources for the API without holding its event loop: a large
 * source (a flow of thousands of tasks takes a second or two to read) is
 * parsed in one worker thread, kept for the life of the process and started
 * on first use, while requests and health checks keep being answered. Small
 * sources, nearly all of them, are parsed in place.
 */
@Injectable()
export class FlowSourceParser implements OnModuleDestroy {
  private readonly logger = new Logger(FlowSourceParser.name);
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  parse(source: string): Promise<ParseFlowResult> {
    if (Buffer.byteLength(source, 'utf8') <= INLINE_PARSE_MAX_BYTES) return Promise.resolve(parseFlow(source));
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise<ParseFlowResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, source });
    });
  }

  async onModuleDestroy(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(join(__dirname, 'flow-parse.worker.js'));
    // An idle parser thread must not keep a stopping process alive.
    worker.unref();
    worker.on('message', (answer: { readonly id: number; readonly result: ParseFlowResult }) => {
      const waiting = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      waiting?.resolve(answer.result);
    });
    const lost = (reason: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(new Error(`the flow parser thread stopped: ${reason}`));
      this.pending.clear();
    };
    worker.on('error', (error) => {
      this.logger.error({ error: error.name, reason: error.message.split('\n')[0] }, 'flow parser thread failed');
      lost(error.name);
    });
    worker.on('exit', (code) => lost(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}
