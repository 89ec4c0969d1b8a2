// Run by a spec as a process of its own (`node -r @swc-node/register <this file>
// <working directory> <command>...`): the worker side of a shell task, so the spec can
// kill it -9 and look at what the task left behind.
import { createTaskRunner } from '../lib/task-runners';
import { recordingContext, shellCommandsTask } from './task-fixtures';

const [workingDirectory, ...commands] = process.argv.slice(2);
const { context } = recordingContext({ workingDirectory });
void createTaskRunner()
  .run(shellCommandsTask(commands), context)
  .then((outcome) => process.stdout.write(`${outcome.state}\n`));
