// How many round trips a process makes to Kafka and PostgreSQL, per second: Kafka
// requests by API (Produce, Fetch, OffsetCommit...) and SQL statements by their
// first words. Preload it into the controller:
//   node tools/bench/fleet/run.js ... --controller-node-args "-r ./tools/bench/fleet/request-counter.cjs"
// Every 5 s it appends one line to $LANNER_REQUEST_COUNTS (default
// /tmp/lanner-request-counts.log): the time, then each kind seen more than
// 10 times in those 5 s, with its rate (a statement is named by its first 40
// characters). It wraps kafkajs's Connection#send and pg's Client#query, so
// what it counts is what this process asked for (merged requests count once),
// not the bytes on the wire.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const output = process.env.LANNER_REQUEST_COUNTS || '/tmp/lanner-request-counts.log';
const counts = new Map();
const count = (kind) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
const fromWorkspace = (module) => require(path.join(__dirname, '..', '..', '..', 'node_modules', module));

function wrap(what, prototype, method, kindOf) {
  const original = prototype && prototype[method];
  if (typeof original !== 'function') {
    process.stderr.write(`request counter: cannot count ${what}\n`);
    return;
  }
  prototype[method] = function counted(...args) {
    count(kindOf(args[0]));
    return original.apply(this, args);
  };
}

wrap(
  'Kafka requests',
  fromWorkspace('kafkajs/src/network/connection.js').prototype,
  'send',
  (sent) => `kafka ${sent?.request?.apiName ?? '?'}`,
);
wrap('SQL statements', fromWorkspace('pg/lib/client.js').prototype, 'query', (config) => {
  const text = typeof config === 'string' ? config : config?.text;
  return `sql ${String(text ?? '?')
    .trim()
    .split(/\s+/)
    .slice(0, 4)
    .join(' ')
    .slice(0, 40)}`;
});

let since = Date.now();
setInterval(() => {
  const now = Date.now();
  const seconds = (now - since) / 1000;
  since = now;
  const rates = [...counts]
    .filter(([, n]) => n > 10)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${kind} ${(n / seconds).toFixed(0)}/s`);
  counts.clear();
  fs.appendFileSync(output, `${new Date(now).toISOString().slice(11, 19)} ${rates.join(' | ')}\n`);
}, 5_000).unref();
