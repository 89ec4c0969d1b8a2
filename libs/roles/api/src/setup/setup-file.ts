import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { TokenFileRead, TokenFileReader } from '@lanner/topology';
import { LineCounter, parseDocument } from 'yaml';

/** One problem of the setup, with its path (`setup.workerGroups[0].subscriptions[1]`) or, for the file itself, `LANNER_SETUP_FILE`. */
export interface SetupProblem {
  readonly path: string;
  readonly message: string;
}

export type SetupSectionRead = { ok: true; section: unknown } | { ok: false; problems: SetupProblem[] };

const FILE_VARIABLE = 'LANNER_SETUP_FILE';
const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Reads the YAML file named by LANNER_SETUP_FILE and returns its `setup`
 * section, with `${NAME}` placeholders in string values replaced by the
 * environment variable NAME (how a token comes "from env"; an unset variable
 * stays a placeholder, which validation then reports). Other top-level keys
 * are left alone: the file may carry more than the setup.
 */
export function readSetupSection(path: string, env: Readonly<Record<string, string | undefined>>): SetupSectionRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return {
      ok: false,
      problems: [{ path: FILE_VARIABLE, message: `names a file that cannot be read (${errorCode(error)}): ${path}` }],
    };
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => {
        const at = error.pos?.[0] === undefined ? undefined : lines.linePos(error.pos[0]);
        // The parser's own text may quote the file (a token); only its code and position are shown.
        return {
          path: FILE_VARIABLE,
          message: `${path} is not valid YAML (${error.code}${at ? ` at line ${at.line}, column ${at.col}` : ''})`,
        };
      }),
    };
  }
  const root: unknown = document.toJS();
  if (typeof root !== 'object' || root === null || Array.isArray(root) || !('setup' in root)) {
    return { ok: false, problems: [{ path: 'setup', message: `is missing: ${path} must have a top-level 'setup' section` }] };
  }
  return { ok: true, section: withEnvironment((root as Record<string, unknown>)['setup'], env) };
}

function withEnvironment(value: unknown, env: Readonly<Record<string, string | undefined>>): unknown {
  if (typeof value === 'string') return value.replace(PLACEHOLDER, (placeholder, name: string) => env[name] ?? placeholder);
  if (Array.isArray(value)) return value.map((item) => withEnvironment(item, env));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withEnvironment(item, env)]));
  }
  return value;
}

/**
 * Token files for the validator. A relative path is relative to the setup
 * file's folder (a setup and its secrets usually sit together). The reason
 * for a failure is the system's error code only, never the file's content.
 */
export function fileTokenReader(setupFile: string): TokenFileReader {
  const base = dirname(setupFile);
  return {
    read(path: string): TokenFileRead {
      try {
        return { readable: true, content: readFileSync(isAbsolute(path) ? path : resolve(base, path), 'utf8') };
      } catch (error) {
        return { readable: false, reason: errorCode(error) };
      }
    },
  };
}

function errorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'unreadable';
}
