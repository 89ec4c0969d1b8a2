// `npx nx run repository:migration-create --name=<name>`: writes the next
// migration from the change in schema.prisma. Run by a developer, never in CI.
// DATABASE_URL must reach some PostgreSQL (the engine reads its version); the
// database is not changed.
import { createMigration } from './create-migration';

async function main(): Promise<void> {
  const name = process.argv[2];
  if (name === undefined || name.trim() === '') {
    process.stderr.write('usage: create-migration <name>\n');
    process.exitCode = 2;
    return;
  }
  const created = await createMigration(name, process.env['DATABASE_URL']);
  process.stdout.write(created === null ? 'schema.prisma is unchanged: no migration written\n' : `wrote ${created.directory}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
