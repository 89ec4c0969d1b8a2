// What the specs of tools/scripts checkers share: a throw-away repository tree made of
// the given files, and one run of a checker script over it.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A fresh folder holding `files` (path relative to it -> text). */
export function tree(prefix: string, files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  return root;
}

/** Runs `script` over `root`: its exit status and the lines it printed. */
export function runChecker(script: string, root: string): { status: number | null; lines: string[] } {
  const result = spawnSync(process.execPath, [script, root], { encoding: 'utf8' });
  return { status: result.status, lines: result.stdout.trim().split('\n') };
}
