// For the stock Prisma CLI run from this folder (`npx prisma validate`, or
// `npx prisma migrate status|deploy` where the native engine is available).
// Lanner itself migrates with src/migrations (the wasm engine).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env['DATABASE_URL'] ?? '' },
});
