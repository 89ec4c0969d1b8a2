import { DevServicesError } from './errors';

/**
 * The local broker's heap: small, as the tests need little and share two cores
 * with it. `KAFKA_HEAP_OPTS` replaces it, as it does for Kafka's own scripts.
 */
export const DEFAULT_KAFKA_HEAP_OPTS = ['-Xms128m', '-Xmx384m'];

/**
 * The local broker's collector: the serial one keeps it from competing with
 * the tests for the cores, at the price of longer pauses (a young collection
 * of about 15 ms every few seconds under load, a full one of 50-150 ms every
 * few minutes). `KAFKA_JVM_PERFORMANCE_OPTS` replaces it, as it does for
 * Kafka's own scripts: benches measuring latency through the broker use
 * Kafka's own choice (G1).
 */
export const DEFAULT_KAFKA_JVM_PERFORMANCE_OPTS = ['-XX:+UseSerialGC'];

/** The heap and collector flags of the local broker's JVM, from the environment or the defaults above. */
export function kafkaJvmOptions(env: NodeJS.ProcessEnv): string[] {
  return [
    ...flagsOf(env, 'KAFKA_HEAP_OPTS', DEFAULT_KAFKA_HEAP_OPTS),
    ...flagsOf(env, 'KAFKA_JVM_PERFORMANCE_OPTS', DEFAULT_KAFKA_JVM_PERFORMANCE_OPTS),
  ];
}

function flagsOf(env: NodeJS.ProcessEnv, variable: string, defaults: readonly string[]): string[] {
  const value = env[variable]?.trim();
  if (!value) return [...defaults];
  const flags = value.split(/\s+/);
  const wrong = flags.find((flag) => !/^-[A-Za-z]/.test(flag));
  if (wrong !== undefined) {
    throw new DevServicesError(
      `${variable} must be JVM options separated by spaces, each starting with '-': '${wrong}' is not one`,
    );
  }
  return flags;
}
