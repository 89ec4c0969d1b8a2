#!/usr/bin/env node
// Regenerates src/api/schema.d.ts from a running api role's OpenAPI document:
//   npx nx run ui:api-types            (the api of `npm start`, http://127.0.0.1:8080)
//   LANNER_API_URL=http://host:port npx nx run ui:api-types
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { SCHEMA_FILE, fetchDocument, renderApiTypes } = require('./api-types');

async function main() {
  const apiUrl = process.env.LANNER_API_URL || 'http://127.0.0.1:8080';
  let document;
  try {
    document = await fetchDocument(apiUrl);
  } catch (error) {
    console.error(
      `api-types: could not read the OpenAPI document from ${apiUrl} (${error.message}); start Lanner (npm start) or set LANNER_API_URL.`,
    );
    return 1;
  }
  fs.writeFileSync(SCHEMA_FILE, await renderApiTypes(document));
  console.log(`api-types: wrote ${path.relative(process.cwd(), SCHEMA_FILE)} from ${apiUrl}`);
  return 0;
}

main().then((code) => (process.exitCode = code));
