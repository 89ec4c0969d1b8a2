import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { type FlowProblem, MAX_FLOW_SOURCE_BYTES, parseFlow } from '@lanner/model';
import { CliError } from '../client/cli-error';
import { print } from '../output';
import { contextOf } from './context';

interface FlowFile {
  readonly file: string;
  readonly source: string;
}

interface FlowView {
  readonly id: string;
  readonly namespace: string;
  readonly revision: number;
}

interface FileProblem extends FlowProblem {
  readonly file: string;
}

const FLOW_FILE = /\.ya?ml$/i;
const SEARCH_PAGE_SIZE = 200;

function readFlowFile(file: string): FlowFile {
  try {
    return { file, source: readFileSync(file, 'utf8') };
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Every `.yml`/`.yaml` file under `dir`, sorted, hidden folders skipped. */
function flowFilesUnder(dir: string): string[] {
  let stats;
  try {
    stats = statSync(dir);
  } catch {
    throw new CliError(`no such directory: ${dir}`);
  }
  if (!stats.isDirectory()) throw new CliError(`not a directory: ${dir}`);
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && FLOW_FILE.test(entry.name)) files.push(path);
    }
  };
  walk(dir);
  return files;
}

/** The problems of each file, checked offline by the same parser the API uses. */
function problemsOf(files: readonly FlowFile[]): FileProblem[] {
  return files.flatMap(({ file, source }) => {
    if (Buffer.byteLength(source) > MAX_FLOW_SOURCE_BYTES)
      return [{ file, path: '', message: `larger than ${MAX_FLOW_SOURCE_BYTES} bytes` }];
    const result = parseFlow(source);
    return result.ok ? [] : result.problems.map((problem) => ({ file, ...problem }));
  });
}

/** `file:line:column: path: message`, as compilers print, so editors and CI annotate the line. */
function formatFileProblem(problem: FileProblem): string {
  const where = [problem.file, problem.line, problem.line === undefined ? undefined : problem.column]
    .filter((part) => part !== undefined)
    .join(':');
  return `${where}: ${problem.path ? `${problem.path}: ` : ''}${problem.message}`;
}

function reportProblems(problems: readonly FileProblem[]): never {
  throw new CliError(
    `${problems.length} problem${problems.length === 1 ? '' : 's'} found; nothing was deployed`,
    1,
    problems.map(formatFileProblem),
  );
}

function inNamespace(namespace: string, parent: string): boolean {
  return namespace === parent || namespace.startsWith(`${parent}.`);
}

export function registerFlowCommands(program: Command): void {
  const flow = program.command('flow').description('validate and deploy flows');

  flow
    .command('validate')
    .description('check flow files offline, with the same YAML paths as the API; exits 1 when any is invalid')
    .argument('<files...>', 'flow YAML files')
    .action((files: string[], _options: unknown, command: Command) => {
      const { output } = command.optsWithGlobals<{ output: 'table' | 'json' }>();
      const problems = problemsOf(files.map(readFlowFile));
      if (output === 'json') process.stdout.write(`${JSON.stringify(problems, null, 2)}\n`);
      else if (problems.length === 0) process.stdout.write(`${files.length} flow${files.length === 1 ? '' : 's'} valid\n`);
      else for (const problem of problems) process.stdout.write(`${formatFileProblem(problem)}\n`);
      if (problems.length > 0) process.exitCode = 1;
    });

  flow
    .command('deploy')
    .description('validate every flow under a directory, then save each one (a new revision); nothing is saved if any is invalid')
    .argument('<dir>', 'directory of flow YAML files (searched recursively)')
    .option('-n, --namespace <namespace>', 'every flow must be in this namespace or below it')
    .option('--delete-missing', 'delete the flows of --namespace (and below) that are not in the directory')
    .action(async (dir: string, options: { namespace?: string; deleteMissing?: boolean }, command: Command) => {
      if (options.deleteMissing && !options.namespace)
        throw new CliError('--delete-missing needs --namespace: it names which flows the directory holds', 2);
      const files = flowFilesUnder(dir).map(readFlowFile);
      if (files.length === 0 && !options.deleteMissing) throw new CliError(`no .yml or .yaml files under ${dir}`);
      const problems = problemsOf(files);
      if (problems.length > 0) reportProblems(problems);
      const parsed = files.map((file) => {
        const result = parseFlow(file.source);
        if (!result.ok) throw new Error('validated above');
        return { ...file, namespace: result.flow.namespace, id: result.flow.id };
      });
      const outside = parsed.filter((f) => options.namespace && !inNamespace(f.namespace, options.namespace));
      if (outside.length > 0) {
        reportProblems(
          outside.map((f) => ({
            file: relative(process.cwd(), f.file) || f.file,
            path: 'namespace',
            message: `'${f.namespace}' is not in --namespace ${options.namespace}`,
          })),
        );
      }
      const seen = new Map<string, string>();
      for (const f of parsed) {
        const key = `${f.namespace}/${f.id}`;
        const other = seen.get(key);
        if (other) reportProblems([{ file: f.file, path: 'id', message: `${key} is also defined in ${other}` }]);
        seen.set(key, f.file);
      }

      const { api, output } = contextOf(command);
      const results: { namespace: string; id: string; revision: number | null; action: string; file: string | null }[] = [];
      for (const f of parsed) {
        const { status, body } = await api.request<FlowView>('PUT', api.tenantPath('flows', f.namespace, f.id), {
          text: { content: f.source, type: 'application/x-yaml' },
        });
        results.push({
          namespace: f.namespace,
          id: f.id,
          revision: body.revision,
          action: status === 201 ? 'created' : 'updated',
          file: f.file,
        });
      }
      if (options.deleteMissing && options.namespace) {
        for (const stale of await flowsIn(api, options.namespace)) {
          if (seen.has(`${stale.namespace}/${stale.id}`)) continue;
          await api.request('DELETE', api.tenantPath('flows', stale.namespace, stale.id));
          results.push({ namespace: stale.namespace, id: stale.id, revision: null, action: 'deleted', file: null });
        }
      }
      print(output, results, results, [
        { header: 'NAMESPACE', value: (r) => r.namespace },
        { header: 'ID', value: (r) => r.id },
        { header: 'REVISION', value: (r) => r.revision },
        { header: 'ACTION', value: (r) => r.action },
      ]);
    });

  flow
    .command('list')
    .description('list the live flows')
    .option('-n, --namespace <namespace>', 'this namespace and below')
    .action(async (options: { namespace?: string }, command: Command) => {
      const { api, output } = contextOf(command);
      const flows = await flowsIn(api, options.namespace);
      print(output, flows, flows, [
        { header: 'NAMESPACE', value: (f) => f.namespace },
        { header: 'ID', value: (f) => f.id },
        { header: 'REVISION', value: (f) => f.revision },
      ]);
    });
}

async function flowsIn(api: ReturnType<typeof contextOf>['api'], namespace: string | undefined): Promise<FlowView[]> {
  const flows: FlowView[] = [];
  for (let page = 1; ; page++) {
    const { body } = await api.request<{ results: FlowView[]; total: number }>('GET', api.tenantPath('flows', 'search'), {
      query: { namespace, page: String(page), size: String(SEARCH_PAGE_SIZE) },
    });
    flows.push(...body.results);
    if (body.results.length === 0 || flows.length >= body.total) return flows;
  }
}
