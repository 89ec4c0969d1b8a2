#!/usr/bin/env node
// Entry point for `npm run services:up|down|status`. Plain CommonJS so it runs before
// anything is built: @swc-node/register compiles the TypeScript sources on the fly.
const path = require('node:path');

process.env.SWC_NODE_PROJECT ??= path.join(__dirname, '..', '..', 'tsconfig.base.json');
// kafkajs warns about its partitioner on every producer; the probe does not care.
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
require('@swc-node/register');

const { runCli } = require('./src/cli-main.ts');

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`dev-services: unexpected failure: ${error && error.message}\n`);
    process.exit(1);
  },
);
