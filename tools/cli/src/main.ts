import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { CliError } from './client/cli-error';
import { registerCompletionCommand } from './commands/completion-command';
import { registerExecutionCommands } from './commands/execution-command';
import { registerFlowCommands } from './commands/flow-command';
import { registerProfileCommands } from './commands/profile-command';
import { registerTopologyCommands } from './commands/topology-command';
import { OUTPUT_FORMATS } from './output';

const workspaceRoot = join(__dirname, '..', '..', '..');

// The process commands load the runtime (NestJS and the rest) only when they run: the API
// commands start without it, which a script calling `lanner` in a loop notices.
const serverCommand = () => import('./server-command');
const migrateCommand = () => import('./migrate-command');
const configCommand = () => import('./config-command');

const program = new Command('lanner')
  .description('Lanner, a distributed workflow orchestrator')
  .showHelpAfterError()
  .exitOverride()
  .option('--server <url>', 'server base URL (LANNER_URL, the profile, else http://127.0.0.1:8080)')
  .option('--token <token>', 'API token (LANNER_TOKEN, else the profile)')
  .option('--tenant <tenant>', 'tenant (LANNER_TENANT, the profile, else main)')
  .option('--profile <name>', 'profile of the profile file (LANNER_PROFILE, else default)')
  .addOption(new Option('-o, --output <format>', 'table for people, json for scripts').choices(OUTPUT_FORMATS).default('table'));

program
  .command('server')
  .description('start a Lanner process in one role (standalone: every role in one process, on embedded defaults)')
  .argument('<role>', 'api, executor, controller, worker, scheduler, indexer or standalone')
  .option('--no-indexer', 'api only: do not run the indexer inside the api process (it runs as its own deployment)')
  .action(async (role: string, options: { indexer: boolean }) =>
    (await serverCommand()).startServer(workspaceRoot, role, { embeddedIndexer: options.indexer }),
  );

program
  .command('db')
  .description('database maintenance')
  .command('migrate')
  .description('apply the pending migrations to DATABASE_URL and print what was applied')
  .action(async () => (await migrateCommand()).migrate());

program
  .command('config')
  .description('configuration reference')
  .command('doc')
  .description('print the reference of every environment variable (docs/CONFIGURATION.md)')
  .action(async () => (await configCommand()).printConfigurationDoc());

registerFlowCommands(program);
registerExecutionCommands(program);
registerTopologyCommands(program);
registerProfileCommands(program);
registerCompletionCommand(program);

/** One line per error on stderr, never a stack trace: usage errors exit 2, the rest 1. */
function report(error: unknown): void {
  if (error instanceof CommanderError) {
    // Commander printed its message already; help and version are not errors.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
    return;
  }
  if (error instanceof CliError) {
    process.stderr.write(`lanner: ${error.message}\n`);
    for (const detail of error.details) process.stderr.write(`  ${detail}\n`);
    process.exitCode = error.exitCode;
    return;
  }
  process.stderr.write(`lanner: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

program.parseAsync(process.argv).catch(report);
