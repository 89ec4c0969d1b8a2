// The worker thread's entry: Lanner runs from its TypeScript sources (bin/lanner.js),
// so the thread registers the same compiler before it loads the worker agent.
'use strict';
const path = require('node:path');

if (!process.env.SWC_NODE_PROJECT)
  process.env.SWC_NODE_PROJECT = path.join(__dirname, '..', '..', '..', '..', '..', 'tsconfig.base.json');
require('@swc-node/register');
require('./worker-thread.main.ts');
