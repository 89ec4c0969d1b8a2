import type { HttpResponse } from './http-types';

/** One server-sent event. `data` is sent as JSON. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: unknown;
  readonly id?: string;
}

/**
 * The text of one event on an `text/event-stream`. JSON has no raw newlines,
 * so `data` is one line; a newline in `event` or `id` would end the field
 * early, so it is removed.
 */
export function formatServerSentEvent(message: ServerSentEvent): string {
  const field = (text: string) => text.replace(/[\r\n]/g, '');
  const lines = [`event: ${field(message.event)}`];
  if (message.id !== undefined) lines.push(`id: ${field(message.id)}`);
  lines.push(`data: ${JSON.stringify(message.data)}`);
  return `${lines.join('\n')}\n\n`;
}

/** A comment line: keeps proxies from closing an idle stream; clients ignore it. */
export const SSE_KEEP_ALIVE = ': keep-alive\n\n';

/** Starts an event stream on `response`; returns a writer that knows when the client went away. */
export function openEventStream(response: HttpResponse): {
  send(message: ServerSentEvent): void;
  close(): void;
  readonly closed: Promise<void>;
} {
  response.statusCode = 200;
  response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  response.setHeader('Cache-Control', 'no-cache, no-transform');
  response.setHeader('Connection', 'keep-alive');
  // Reverse proxies (nginx) buffer responses unless told not to.
  response.setHeader('X-Accel-Buffering', 'no');
  response.flushHeaders();
  let ended = false;
  const closed = new Promise<void>((resolve) =>
    response.once('close', () => {
      ended = true;
      resolve();
    }),
  );
  return {
    send(message) {
      if (!ended) response.write(formatServerSentEvent(message));
    },
    close() {
      if (!ended) {
        ended = true;
        response.end();
      }
    },
    closed,
  };
}
