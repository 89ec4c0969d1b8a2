import { setFlagsFromString } from 'node:v8';
import { ControllerRoleModule, GrpcTlsSetupError, grpcServerCredentials } from '@lanner/role-controller';
import { EXIT_BAD_CONFIG, runRole, serverRoleSettings } from '@lanner/runtime';

void runRole('controller', (config, { logger }) => {
  // Fewer full collections, for more heap between them (LANNER_HEAP_GROWING_PERCENT). V8 reads the
  // flag each time it sets the next limit, so setting it before the streams arrive is enough.
  setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
  logger.info({ heapGrowingPercent: config.heapGrowingPercent }, 'V8 heap growing factor set');
  try {
    // Unreadable TLS files stop the start here, one line per variable, like any other bad configuration.
    grpcServerCredentials(config.grpc.tls);
  } catch (error) {
    if (!(error instanceof GrpcTlsSetupError)) throw error;
    for (const problem of error.problems) process.stderr.write(`lanner controller: ${problem}\n`);
    process.exit(EXIT_BAD_CONFIG);
  }
  return [ControllerRoleModule.forRoot(serverRoleSettings(config))];
});
