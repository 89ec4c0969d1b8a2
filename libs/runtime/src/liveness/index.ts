export { DEFAULT_LIVENESS_TIMINGS, type LivenessTimings } from './liveness-timings';
export { ServiceInstanceIdentity, type ServiceInstanceRole } from './service-instance-identity';
export {
  EXIT_DECLARED_NOT_RUNNING,
  LIVENESS_TIMINGS,
  PROCESS_EXIT,
  ServiceInstanceHeartbeat,
  type ProcessExit,
  type ServiceInstanceStore,
} from './service-instance-heartbeat';
