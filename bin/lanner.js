#!/usr/bin/env node
// The `lanner` command. Lanner runs from its TypeScript sources: @swc-node/register
// compiles them on load and resolves the workspace's `@lanner/*` path aliases
// from the root tsconfig.base.json.
'use strict';
const path = require('node:path');

const workspaceRoot = path.join(__dirname, '..');
if (!process.env.SWC_NODE_PROJECT) process.env.SWC_NODE_PROJECT = path.join(workspaceRoot, 'tsconfig.base.json');
require('@swc-node/register');
require(path.join(workspaceRoot, 'tools', 'cli', 'src', 'main.ts'));
