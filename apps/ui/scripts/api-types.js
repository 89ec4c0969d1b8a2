// The UI's API types are generated from the OpenAPI document the api role serves
// (never written by hand). This module turns a document into the text of
// src/api/schema.d.ts; generate-api-types.js writes it, and the UI browser tests
// check that the committed file matches what the running server serves.
'use strict';

const path = require('node:path');

const SCHEMA_FILE = path.join(__dirname, '..', 'src', 'api', 'schema.d.ts');
const OPENAPI_PATH = '/api/v1/openapi.json';
const HEADER = "// Generated from the api role's OpenAPI document by `npx nx run ui:api-types`: do not edit.\n\n";

/** The TypeScript text for an OpenAPI document (an object). */
async function renderApiTypes(document) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(document, { alphabetize: true, exportType: true });
  return HEADER + astToString(ast);
}

async function fetchDocument(apiUrl) {
  const response = await fetch(new URL(OPENAPI_PATH, apiUrl));
  if (!response.ok) throw new Error(`GET ${OPENAPI_PATH} at ${apiUrl} answered ${response.status}`);
  return response.json();
}

module.exports = { SCHEMA_FILE, renderApiTypes, fetchDocument };
