import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Workers run this library and never touch the repository or the queue (ARCHITECTURE.md).
// Lint enforces it for the worker scope; this keeps the library itself honest too.
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

describe('plugins: never imports the repository or the queue', () => {
  it('has no import of @lanner/repository, @lanner/queue or the database and broker clients', () => {
    const forbidden = /from '(@lanner\/(repository|queue)|@prisma\/client|pg|kafkajs)'/;
    const offenders = sourceFiles(__dirname).filter((file) => file !== __filename && forbidden.test(readFileSync(file, 'utf8')));

    expect(offenders).toEqual([]);
  });
});
