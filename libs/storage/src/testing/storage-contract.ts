import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type { InternalStorage } from '../lib/storage.port';
import { StorageFileNotFound, StorageFileTooLarge } from '../lib/storage.port';
import { executionPrefix, inputFileUri, taskFileUri, type TaskRunScope } from '../lib/storage-uri';

/**
 * The behaviour every internal storage adapter must show, as one Jest suite: a spec
 * calls it with a factory that gives a fresh, empty store (its own folder or key prefix).
 */
export function describeStorageContract(name: string, open: () => Promise<InternalStorage>): void {
  describe(`internal storage contract: ${name}`, () => {
    let storage: InternalStorage;
    const run = (overrides: Partial<TaskRunScope> = {}): TaskRunScope => ({
      namespace: 'company.team',
      flowId: 'nightly',
      executionId: 'exec1',
      taskId: 'build',
      taskRunId: 'run1',
      ...overrides,
    });

    beforeEach(async () => {
      storage = await open();
    });

    it('gives back the bytes it was given, with their size, under the URI Kestra shapes', async () => {
      const uri = taskFileUri(run(), 'out.csv');
      expect(uri.uri).toBe('kestra:///company/team/nightly/executions/exec1/tasks/build/run1/out.csv');
      const stored = await storage.put('main', uri, Readable.from([Buffer.from('a,b\n1,2\n')]));
      expect(stored).toEqual({ uri: uri.uri, size: 8 });
      expect(await text(await storage.get('main', uri))).toBe('a,b\n1,2\n');
      expect(await storage.stat('main', uri)).toEqual({ uri: uri.uri, size: 8 });
    });

    it('keeps a file name with spaces and folders', async () => {
      const uri = taskFileUri(run(), 'reports/march 2024.csv');
      await storage.put('main', uri, Readable.from([Buffer.from('x')]));
      expect(await storage.list('main', executionPrefix(run()))).toEqual([{ uri: uri.uri, size: 1 }]);
      expect(await text(await storage.get('main', uri))).toBe('x');
    });

    it('answers "not found" for a file that was never written', async () => {
      const uri = taskFileUri(run(), 'missing.txt');
      await expect(storage.get('main', uri)).rejects.toBeInstanceOf(StorageFileNotFound);
      expect(await storage.stat('main', uri)).toBeUndefined();
      expect(await storage.delete('main', uri)).toBe(false);
    });

    it("never shows one tenant's file to another", async () => {
      const uri = taskFileUri(run(), 'secret.txt');
      await storage.put('tenant-a', uri, Readable.from([Buffer.from('only a')]));
      await expect(storage.get('tenant-b', uri)).rejects.toBeInstanceOf(StorageFileNotFound);
      expect(await storage.stat('tenant-b', uri)).toBeUndefined();
      expect(await storage.list('tenant-b', executionPrefix(run()))).toEqual([]);
      expect(await storage.deletePrefix('tenant-b', executionPrefix(run()))).toBe(0);
      expect(await text(await storage.get('tenant-a', uri))).toBe('only a');
    });

    it('replaces a file written again', async () => {
      const uri = taskFileUri(run(), 'out.txt');
      await storage.put('main', uri, Readable.from([Buffer.from('first version')]));
      await storage.put('main', uri, Readable.from([Buffer.from('second')]));
      expect(await text(await storage.get('main', uri))).toBe('second');
      expect(await storage.list('main', executionPrefix(run()))).toEqual([{ uri: uri.uri, size: 6 }]);
    });

    it('refuses a body over the size limit and keeps nothing of it', async () => {
      const uri = inputFileUri(run(), 'upload', 'big.bin');
      const body = Readable.from(chunks(4, 64 * 1024));
      await expect(storage.put('main', uri, body, { maxBytes: 100_000 })).rejects.toBeInstanceOf(StorageFileTooLarge);
      expect(await storage.stat('main', uri)).toBeUndefined();
      expect(await storage.list('main', executionPrefix(run()))).toEqual([]);
    });

    it('keeps nothing when the body fails half way', async () => {
      const uri = taskFileUri(run(), 'broken.bin');
      async function* failing(): AsyncGenerator<Buffer> {
        yield randomBytes(64 * 1024);
        throw new Error('the client went away');
      }
      await expect(storage.put('main', uri, Readable.from(failing()))).rejects.toThrow('the client went away');
      expect(await storage.stat('main', uri)).toBeUndefined();
      expect(await storage.list('main', executionPrefix(run()))).toEqual([]);
    });

    it('streams a 24 MiB file both ways intact', async () => {
      const uri = taskFileUri(run(), 'large.bin');
      const written = createHash('sha256');
      const source = Readable.from(
        (function* () {
          for (const chunk of chunks(384, 64 * 1024)) {
            written.update(chunk);
            yield chunk;
          }
        })(),
      );
      const stored = await storage.put('main', uri, source);
      expect(stored.size).toBe(24 * 1024 * 1024);
      const read = createHash('sha256');
      let bytes = 0;
      await pipeline(
        await storage.get('main', uri),
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            read.update(chunk);
            bytes += chunk.length;
            done();
          },
        }),
      );
      expect(bytes).toBe(24 * 1024 * 1024);
      expect(read.digest('hex')).toBe(written.digest('hex'));
    });

    it("lists and purges one execution's files, and no other execution's", async () => {
      const one = taskFileUri(run(), 'a.txt');
      const two = inputFileUri(run(), 'data', 'b.txt');
      // `exec10` starts with `exec1` as a string: it is another execution all the same.
      const other = taskFileUri(run({ executionId: 'exec10' }), 'c.txt');
      for (const uri of [one, two, other]) await storage.put('main', uri, Readable.from([Buffer.from('12345')]));
      expect((await storage.list('main', executionPrefix(run()))).map((file) => file.uri).sort()).toEqual(
        [two.uri, one.uri].sort(),
      );
      expect(await storage.deletePrefix('main', executionPrefix(run()))).toBe(2);
      expect(await storage.list('main', executionPrefix(run()))).toEqual([]);
      expect(await storage.stat('main', other)).toEqual({ uri: other.uri, size: 5 });
    });

    it('deletes one file', async () => {
      const uri = taskFileUri(run(), 'gone.txt');
      await storage.put('main', uri, Readable.from([Buffer.from('bye')]));
      expect(await storage.delete('main', uri)).toBe(true);
      expect(await storage.stat('main', uri)).toBeUndefined();
      expect(await storage.delete('main', uri)).toBe(false);
    });
  });
}

function* chunks(count: number, size: number): Generator<Buffer> {
  for (let index = 0; index < count; index += 1) yield randomBytes(size);
}

async function text(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}
