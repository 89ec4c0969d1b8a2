export { ControllerRoleModule } from './controller-role.module';
export { DEFAULT_STREAM_RECYCLE_AGE_S, DEFAULT_WORKER_TOKEN_TTL } from './lib/controller-settings';
export type { ControllerSettings, ControllerTlsSettings, WorkerAuthSettings } from './lib/controller-settings';
export { GrpcTlsSetupError, grpcServerCredentials } from './lib/grpc-credentials';
