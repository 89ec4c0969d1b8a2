// Shared Jest setup: SWC transpiles TypeScript (with decorator metadata for NestJS),
// and the tsconfig path aliases resolve to each library's index.ts.
// The aliases are given twice: `moduleNameMapper` for the spec files, and swc's own
// `paths` (which rewrites them to relative imports) for the files Jest loads without
// its module mapping: a `globalSetup` / `globalTeardown` and what they import.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias.replace(/[/\\-]/g, (c) => `\\${c}`)}$`,
    path.join(__dirname, target),
  ]),
);

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          baseUrl: __dirname,
          paths: compilerOptions.paths,
        },
        module: { type: 'commonjs' },
        sourceMaps: 'inline',
      },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  passWithNoTests: true,
};
