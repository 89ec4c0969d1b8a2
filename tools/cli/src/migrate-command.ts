import { CONFIG_VARIABLES, EXIT_BAD_CONFIG } from '@lanner/runtime';

function databaseUrlProblem(value: string | undefined): string | undefined {
  const variable = CONFIG_VARIABLES.find((candidate) => candidate.name === 'DATABASE_URL');
  if (!variable) return undefined;
  if (value === undefined || value.trim() === '') return 'required, not set';
  const parsed = variable.schema.safeParse(value);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

/**
 * `lanner db migrate`: applies the pending migrations to DATABASE_URL and says
 * which. This is the migration step of a deployment (a Helm pre-upgrade Job);
 * no distributed role migrates at start.
 */
export async function migrate(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const databaseUrl = env['DATABASE_URL'];
  const problem = databaseUrlProblem(databaseUrl);
  if (problem) {
    // Never echo the value: it holds the password.
    process.stderr.write(`lanner db migrate: DATABASE_URL: ${problem}\n`);
    process.exit(EXIT_BAD_CONFIG);
  }
  try {
    // Loaded here, not at the top: `lanner server worker` must not load the repository (or Prisma).
    const { applyMigrations } = await import('@lanner/repository');
    const { applied, total } = await applyMigrations(databaseUrl as string);
    if (applied.length === 0) {
      process.stdout.write(`Database up to date: all ${total} migration(s) already applied.\n`);
    } else {
      process.stdout.write(
        `Applied ${applied.length} of ${total} migration(s):\n${applied.map((name) => `  ${name}\n`).join('')}`,
      );
    }
  } catch (error) {
    // The repository's errors are written to be shown (no SQL, no password); a stack trace helps no operator here.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`lanner db migrate: ${message}\n`);
    process.exit(1);
  }
}
