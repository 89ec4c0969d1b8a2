#!/usr/bin/env node
// Runs the fleet bench (fleet.bench.ts) from its TypeScript sources, like bin/lanner.js:
//   node tools/bench/fleet/run.js --workers 2000 --queues 20 --rate 200 --duration 30
'use strict';
const path = require('node:path');

const workspaceRoot = path.join(__dirname, '..', '..', '..');
if (!process.env.SWC_NODE_PROJECT) process.env.SWC_NODE_PROJECT = path.join(workspaceRoot, 'tsconfig.base.json');
require('@swc-node/register');
require(path.join(__dirname, 'fleet.bench.ts'));
