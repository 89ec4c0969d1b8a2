#!/usr/bin/env node
// Generates the Prisma client of libs/repository (not committed). `prisma generate`
// never calls the schema engine, so pointing PRISMA_SCHEMA_ENGINE_BINARY at any
// existing file avoids the native-engine download that is unavailable here.
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const result = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate', '--schema', 'libs/repository/prisma/schema.prisma'],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || __filename,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
      CHECKPOINT_DISABLE: '1',
    },
  },
);
process.exit(result.status ?? 1);
