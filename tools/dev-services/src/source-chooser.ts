/**
 * Which kind of service to use, in the documented order: a connection string given in
 * the environment wins (nothing is started), then a Docker engine through
 * testcontainers, then local processes. The Docker probe is lazy so that a machine
 * with the variables set never pays for it.
 */
export type ServiceChoice =
  { readonly source: 'env'; readonly connection: string } | { readonly source: 'docker' } | { readonly source: 'local' };

export interface SourceChooserInput {
  /** The value of KAFKA_BROKERS / DATABASE_URL, if set. */
  readonly fromEnv: string | undefined;
  /** Answers whether a Docker engine responds; called at most once, only when needed. */
  readonly dockerAnswers: () => Promise<boolean>;
}

export async function chooseServiceSource(input: SourceChooserInput): Promise<ServiceChoice> {
  const given = input.fromEnv?.trim();
  if (given) return { source: 'env', connection: given };
  if (await input.dockerAnswers()) return { source: 'docker' };
  return { source: 'local' };
}

/** Wraps a probe so several services share one answer (the probe may take seconds). */
export function memoizeProbe(probe: () => Promise<boolean>): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined;
  return () => (answer ??= probe());
}
