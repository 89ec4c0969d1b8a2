import { ControllerRoleModule, GrpcTlsSetupError, grpcServerCredentials } from '@lanner/role-controller';
import { EXIT_BAD_CONFIG, runRole, serverRoleSettings } from '@lanner/runtime';

void runRole('controller', (config) => {
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
