import { chown, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeScriptTask, ShellCommandsTask } from '@lanner/model';
import { processEnvironment } from '../process/process-environment';
import { runProcess, type TaskUser } from '../process/run-process';
import type { TaskKindContext, TaskKindResult, TaskKindRunner } from '../task-runner.port';
import { uploadOutputFiles, writeInputFiles, writeNamespaceFiles } from './script-files';

export interface ScriptOptions {
  /** Time between SIGTERM and SIGKILL when a script is killed. Default 5 s. */
  readonly killGraceMs?: number;
  /** Lines of stderr quoted in a failed script's error. Default 20. */
  readonly stderrTailLines?: number;
  /** The worker's environment, filtered by `processEnvironment`. Default `process.env`. */
  readonly workerEnv?: NodeJS.ProcessEnv;
  /** The user script processes run as (docs/task-isolation.md); the worker's own when absent. */
  readonly runAs?: TaskUser;
}

function processLimits(options: ScriptOptions): { killGraceMs: number; stderrTailLines: number; runAs?: TaskUser } {
  return {
    killGraceMs: options.killGraceMs ?? 5000,
    stderrTailLines: options.stderrTailLines ?? 20,
    ...(options.runAs ? { runAs: options.runAs } : {}),
  };
}

/**
 * Kestra's `scripts.shell.Commands` on the process runner: the commands joined by
 * newlines after `set -e` (the first failing command ends the script, as in Kestra),
 * run by `/bin/sh -c` in the working directory with the task's `env`.
 */
export function shellCommandsRunner(options: ScriptOptions = {}): TaskKindRunner<ShellCommandsTask> {
  return {
    async run(task, context) {
      await requireDirectory(context);
      await writeNamespaceFiles(task, context, options.runAs);
      await writeInputFiles(task, context, options.runAs);
      const script = ['set -e', ...task.commands].join('\n');
      const result = await runProcess(
        {
          ...processLimits(options),
          command: '/bin/sh',
          args: ['-c', script],
          env: processEnvironment(task.env, options.workerEnv),
        },
        context,
      );
      return withOutputFiles(task, context, result);
    },
  };
}

/**
 * Kestra's `scripts.node.Script`: the script is written to a file (CommonJS, `.js`)
 * outside the working directory and run by the worker's own Node
 * (`process.execPath`), with the working directory as its current directory, under
 * the same rules as shell commands.
 */
export function nodeScriptRunner(options: ScriptOptions = {}): TaskKindRunner<NodeScriptTask> {
  return {
    async run(task, context) {
      await requireDirectory(context);
      await writeNamespaceFiles(task, context, options.runAs);
      await writeInputFiles(task, context, options.runAs);
      const folder = await mkdtemp(join(tmpdir(), 'lanner-node-script-'));
      try {
        const file = join(folder, 'script.js');
        await writeFile(file, task.script, { mode: 0o600 });
        // The script's user must read it: the folder and the file are its own.
        if (options.runAs) {
          await chown(folder, options.runAs.uid, options.runAs.gid);
          await chown(file, options.runAs.uid, options.runAs.gid);
        }
        const result = await runProcess(
          {
            ...processLimits(options),
            command: process.execPath,
            args: [file],
            env: processEnvironment(task.env, options.workerEnv),
          },
          context,
        );
        return await withOutputFiles(task, context, result);
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}

/** After a script that did not fail: its `outputFiles` stored, their URIs under the output `outputFiles`. */
async function withOutputFiles(
  task: ShellCommandsTask | NodeScriptTask,
  context: TaskKindContext,
  result: TaskKindResult,
): Promise<TaskKindResult> {
  if (result.state === 'FAILED' || context.signal.aborted) return result;
  const outputFiles = await uploadOutputFiles(task, context);
  return outputFiles === undefined ? result : { ...result, outputs: { ...result.outputs, outputFiles } };
}

async function requireDirectory(context: TaskKindContext): Promise<void> {
  const found = await stat(context.workingDirectory).catch(() => undefined);
  if (!found?.isDirectory()) throw new Error(`the working directory ${context.workingDirectory} does not exist on this worker`);
}
