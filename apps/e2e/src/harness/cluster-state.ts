import { readFileSync } from 'node:fs';

/**
 * What the global setup hands to the spec files (they run in other module registries,
 * so it travels as a JSON file named by an environment variable).
 */
export interface ClusterState {
  /** `http://127.0.0.1:<port>`: the API, the only endpoint a user talks to. */
  readonly apiUrl: string;
  readonly adminToken: string;
  /** A folder the specs and the workers' shell tasks share (marker and pid files). */
  readonly scratchDir: string;
  /** Where the run keeps everything it made (logs, worker storage). */
  readonly workDir: string;
  /** One log file per role process, by process name. */
  readonly logFiles: Readonly<Record<string, string>>;
  /** The run's own database (dropped at the end). */
  readonly databaseName: string;
  /** Prefix of the run's Kafka topics and consumer groups (LANNER_KAFKA_NAMESPACE). */
  readonly kafkaNamespace: string;
  /** The gRPC port of the cluster's controller (where workers connect, on 127.0.0.1). */
  readonly controllerGrpcPort: number;
  /** The harness's control endpoint (restart a role process), see control-server.ts. */
  readonly control: { readonly url: string; readonly token: string };
}

export const CLUSTER_STATE_VARIABLE = 'LANNER_E2E_STATE_FILE';

export function readClusterState(): ClusterState {
  const file = process.env[CLUSTER_STATE_VARIABLE];
  if (!file) {
    throw new Error(
      `${CLUSTER_STATE_VARIABLE} is not set: run the e2e specs through apps/e2e/jest.e2e.config.js (its global setup starts the cluster)`,
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
}
