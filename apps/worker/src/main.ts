import { WorkerRoleModule, workerRoleSettings } from '@lanner/role-worker';
import { ConfigError, EXIT_BAD_CONFIG, runRole } from '@lanner/runtime';

void runRole('worker', (config) => {
  try {
    return [WorkerRoleModule.forRoot(workerRoleSettings(config))];
  } catch (error) {
    // Unusable TLS files are configuration errors: one line per variable, and the config exit code.
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) process.stderr.write(`lanner worker: ${problem}\n`);
    process.exit(EXIT_BAD_CONFIG);
  }
});
