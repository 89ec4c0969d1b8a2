import { join } from 'node:path';
import { Command } from 'commander';
import { renderConfigurationDoc, ROLES } from '@lanner/runtime';
import { migrate } from './migrate-command';
import { startServer } from './server-command';

const workspaceRoot = join(__dirname, '..', '..', '..');

const program = new Command('lanner')
  .description('Lanner, a distributed workflow orchestrator')
  .showHelpAfterError()
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

program
  .command('server')
  .description('start a Lanner process in one role (standalone: every role in one process, on embedded defaults)')
  .argument('<role>', ROLES.join('|'))
  .option('--no-indexer', 'api only: do not run the indexer inside the api process (it runs as its own deployment)')
  .action((role: string, options: { indexer: boolean }) => startServer(workspaceRoot, role, { embeddedIndexer: options.indexer }));

program
  .command('db')
  .description('database maintenance')
  .command('migrate')
  .description('apply the pending migrations to DATABASE_URL and print what was applied')
  .action(() => migrate());

program
  .command('config')
  .description('configuration reference')
  .command('doc')
  .description('print the reference of every environment variable (docs/CONFIGURATION.md)')
  .action(() => {
    process.stdout.write(renderConfigurationDoc());
  });

void program.parseAsync(process.argv);
