// A Vite (Rollup) plugin that reports the JavaScript a first page load fetches, gzipped,
// and fails the build when it is over budget. The initial JS is every entry chunk and
// the chunks they import statically; chunks reached only through `import()` (the YAML
// editor, the topology graph, the dashboard's charts) load later and are listed apart.
import { gzipSync } from 'node:zlib';
import type { Plugin, Rolldown } from 'vite';

type OutputChunk = Rolldown.OutputChunk;

const KB = 1024;

export function bundleBudget({ limitKb }: { limitKb: number }): Plugin {
  return {
    name: 'lanner-bundle-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((output): output is OutputChunk => output.type === 'chunk');
      const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const initial = new Set<string>();
      const visit = (fileName: string): void => {
        if (initial.has(fileName) || !byName.has(fileName)) return;
        initial.add(fileName);
        for (const imported of byName.get(fileName)?.imports ?? []) visit(imported);
      };
      for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);
      const gzipped = (chunk: OutputChunk) => gzipSync(chunk.code, { level: 9 }).length;
      const sizes = chunks.map((chunk) => ({
        fileName: chunk.fileName,
        initial: initial.has(chunk.fileName),
        bytes: gzipped(chunk),
      }));
      const initialBytes = sizes.filter((size) => size.initial).reduce((sum, size) => sum + size.bytes, 0);
      const lazy = sizes
        .filter((size) => !size.initial)
        .sort((a, b) => b.bytes - a.bytes)
        .map((size) => `${size.fileName} ${(size.bytes / KB).toFixed(1)} KB`);
      const line = `ui bundle: initial JS ${(initialBytes / KB).toFixed(1)} KB gzipped (budget ${limitKb} KB) in ${initial.size} chunk(s); loaded later: ${lazy.join(', ') || 'nothing'}`;
      if (initialBytes > limitKb * KB) {
        // A message, not a stack trace: the build fails through its exit code.
        process.stderr.write(
          `${line}\nOver budget: load the new code with import() where it is used, or raise the budget in vite.config.mts with a reason.\n`,
        );
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`${line}\n`);
    },
  };
}
