#!/usr/bin/env node
// Fails (exit 1) when src/api/schema.d.ts is not what the running api role's OpenAPI
// document generates today: an API change cannot ship with stale UI types. The UI
// browser tests run it against their standalone; by hand: LANNER_API_URL=... node this.
'use strict';

const fs = require('node:fs');
const { SCHEMA_FILE, fetchDocument, renderApiTypes } = require('./api-types');

async function main() {
  const apiUrl = process.env.LANNER_API_URL || 'http://127.0.0.1:8080';
  const expected = await renderApiTypes(await fetchDocument(apiUrl));
  const committed = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, 'utf8') : '';
  if (committed !== expected) {
    console.error(`check-api-types: apps/ui/src/api/schema.d.ts does not match the OpenAPI document served at ${apiUrl}.`);
    console.error('Regenerate it against a running Lanner (npm start) with `npx nx run ui:api-types` and commit the result.');
    return 1;
  }
  console.log('check-api-types: apps/ui/src/api/schema.d.ts is up to date with the OpenAPI document.');
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (error) => {
    console.error(`check-api-types: ${error.message}`);
    process.exitCode = 1;
  },
);
