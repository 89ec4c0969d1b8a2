import { join } from 'node:path';

/** libs/repository/prisma, found from this file so it works from any working directory. */
export const PRISMA_DIR = join(__dirname, '..', '..', 'prisma');
export const SCHEMA_FILE = join(PRISMA_DIR, 'schema.prisma');
export const MIGRATIONS_DIR = join(PRISMA_DIR, 'migrations');
