export { DEFAULT_LIVENESS_TIMINGS, type LivenessTimings } from './liveness-timings';
export { ServiceInstanceIdentity, type ServiceInstanceRole } from './service-instance-identity';
export { LIVENESS_TIMINGS, ServiceInstanceHeartbeat, type ServiceInstanceStore } from './service-instance-heartbeat';
