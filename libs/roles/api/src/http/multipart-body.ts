import busboy from 'busboy';
import type { Readable } from 'node:stream';
import type { HttpRequest } from './http-types';
import { InvalidRequest, PayloadTooLarge } from './api-errors';
import { unstorableText } from './storable-text';

/** A text part of a `multipart/form-data` body. */
export interface FormField {
  readonly name: string;
  readonly value: string;
}

/** A file part (a part with a filename): streamed to `FileParts.store` when given, otherwise read and dropped. */
export interface FormFile {
  readonly name: string;
  readonly filename: string;
  readonly sizeBytes: number;
  /** What `FileParts.store` answered (the file's internal storage URI). */
  readonly stored?: string;
}

/** Where file parts go while the form is read: each is streamed, never held in memory. */
export interface FileParts {
  /** The most bytes all file parts may hold together, beside the text limit. */
  readonly maxBytes: number;
  /** Streams one part; resolves with where it went. Must consume or destroy `content`. */
  readonly store: (part: { name: string; filename: string; content: Readable }) => Promise<{ stored: string; sizeBytes: number }>;
}

export interface MultipartForm {
  /** In the order they were sent; a name may repeat. */
  readonly fields: readonly FormField[];
  readonly files: readonly FormFile[];
}

/** At most this many parts in one form; more is refused as malformed rather than read. */
const MAX_PARTS = 1000;

export function isMultipartForm(request: HttpRequest): boolean {
  return /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');
}

/**
 * Reads a `multipart/form-data` body, refusing more than `limitBytes` in all
 * (413) and a body that is not a well-formed form (400, saying what is wrong
 * without quoting the body).
 */
export function readMultipartForm(request: HttpRequest, limitBytes: number, fileParts?: FileParts): Promise<MultipartForm> {
  // With stored file parts, the body may hold the files' bytes beside the text.
  const bodyLimit = limitBytes + (fileParts?.maxBytes ?? 0);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > bodyLimit) {
    request.resume();
    return Promise.reject(new PayloadTooLarge(bodyLimit));
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: request.headers, limits: { fieldSize: limitBytes, parts: MAX_PARTS } });
  } catch (error) {
    request.resume();
    return Promise.reject(malformed(error));
  }
  return new Promise<MultipartForm>((resolve, reject) => {
    const fields: FormField[] = [];
    const files: FormFile[] = [];
    const pendingFiles: Array<Promise<void>> = [];
    /** File parts being stored: ended with the failure when the form fails, so no upload waits forever. */
    const streaming = new Set<Readable>();
    let settled = false;
    let received = 0;

    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      for (const stream of streaming) stream.destroy(error);
      request.unpipe(parser);
      request.removeListener('data', count);
      // Read and drop the rest, so the answer reaches a client still sending.
      request.resume();
      reject(error);
    };
    function count(chunk: Buffer | string): void {
      received += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (received > bodyLimit) fail(new PayloadTooLarge(bodyLimit));
    }

    parser.on('field', (name: string | undefined, value, info) => {
      // A throw in a parser's event handler would end the process: every failure here goes to `fail`.
      try {
        if (info.valueTruncated || info.nameTruncated) return fail(new PayloadTooLarge(limitBytes));
        if (name === undefined || name === '')
          return fail(
            new InvalidRequest('The multipart body has a field without a name', [
              { path: '$', message: 'every part needs a name' },
            ]),
          );
        const reason = unstorableText(name) ?? unstorableText(value);
        if (reason !== undefined)
          return fail(
            new InvalidRequest('The multipart body holds text that cannot be accepted', [{ path: name, message: reason }]),
          );
        fields.push({ name, value });
      } catch (error) {
        fail(error instanceof Error ? error : new Error(String(error)));
      }
    });
    parser.on('file', (name, stream, info) => {
      const filename = info.filename ?? '';
      if (fileParts === undefined) {
        let sizeBytes = 0;
        stream.on('data', (chunk: Buffer) => (sizeBytes += chunk.length));
        pendingFiles.push(
          new Promise<void>((done) => {
            stream.on('end', () => {
              files.push({ name, filename, sizeBytes });
              done();
            });
            // The parser reports the same failure through its own 'error'.
            stream.on('error', () => done());
          }),
        );
        return;
      }
      // No listener before `store` takes the stream: a chunk read now would be lost to it.
      streaming.add(stream);
      pendingFiles.push(
        fileParts.store({ name, filename, content: stream }).then(
          ({ stored, sizeBytes }) => {
            streaming.delete(stream);
            files.push({ name, filename, sizeBytes, stored });
          },
          (error: unknown) => {
            streaming.delete(stream);
            stream.resume();
            fail(error instanceof Error ? error : new Error(String(error)));
          },
        ),
      );
    });
    parser.on('partsLimit', () =>
      fail(
        new InvalidRequest('The multipart body could not be read', [
          { path: 'body', message: `has more than ${MAX_PARTS} parts` },
        ]),
      ),
    );
    parser.on('error', (error) => fail(malformed(error)));
    parser.on('close', () => {
      void Promise.all(pendingFiles).then(() => {
        if (settled) return;
        settled = true;
        resolve({ fields, files });
      });
    });
    request.on('data', count);
    request.on('aborted', () => fail(malformed(new Error('Unexpected end of form'))));
    request.pipe(parser);
  });
}

/** The parser's own wording is not shown; each known failure gets a sentence of ours. */
function malformed(error: unknown): InvalidRequest {
  const text = error instanceof Error ? error.message : '';
  const problem = (path: string, message: string) =>
    new InvalidRequest('The multipart body could not be read', [{ path, message }]);
  if (/boundary not found/i.test(text)) return problem('headers.content-type', 'multipart/form-data needs a boundary parameter');
  if (/malformed content type/i.test(text)) return problem('headers.content-type', 'is not a valid media type');
  if (/malformed part header/i.test(text)) return problem('body', 'a part has a malformed header');
  if (/unexpected end of (form|file)/i.test(text)) return problem('body', 'ends before the closing multipart boundary');
  return problem('body', 'is not a well-formed multipart/form-data body');
}
