// What one Lanner process asks of its neighbours, counted for tools/bench/e2e: SQL
// statements (by kind) and the transactions they form, Kafka requests by API, queue
// messages produced by topic, gRPC messages received. Preload it into a role process
// (NODE_OPTIONS="-r /abs/path/tools/bench/e2e/counter.cjs") with
// LANNER_BENCH_COUNTS_DIR set: every 200 ms the process writes its running totals to
// <dir>/<name>-<pid>.json, which the bench reads before and after each phase. With
// LANNER_BENCH_SQL_TEXTS=1 it also counts statements by their first 90 characters.
//
// It wraps pg's Client#query (Prisma's driver adapter runs on pg, so Prisma's
// statements are counted too), kafkajs's Connection#send and producer, and
// grpc-js's message decoder. A transaction is a BEGIN..COMMIT/ROLLBACK block, or one
// statement sent outside such a block (PostgreSQL runs it in a transaction of its own).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const directory = process.env.LANNER_BENCH_COUNTS_DIR;
const SQL_TEXTS = process.env.LANNER_BENCH_SQL_TEXTS === '1';
if (directory) install(directory);

function install(dir) {
  const counts = Object.create(null);
  let changed = true;
  const count = (kind, n = 1) => {
    counts[kind] = (counts[kind] ?? 0) + n;
    changed = true;
  };
  const fromWorkspace = (module) => require(path.join(__dirname, '..', '..', '..', 'node_modules', module));
  const wrapMethod = (what, prototype, method, before) => {
    const original = prototype && prototype[method];
    if (typeof original !== 'function') {
      process.stderr.write(`bench counter: cannot count ${what}\n`);
      return;
    }
    prototype[method] = function counted(...args) {
      before(this, args);
      return original.apply(this, args);
    };
  };

  // SQL statements and transactions, per pg client (one connection).
  const IN_TRANSACTION = Symbol('benchInTransaction');
  wrapMethod('SQL statements', fromWorkspace('pg/lib/client.js').prototype, 'query', (client, [config]) => {
    const text = String((typeof config === 'string' ? config : config?.text) ?? '').trimStart();
    const kind = (text.match(/^[A-Za-z]+/)?.[0] ?? '?').toUpperCase();
    count('sql');
    count(`sql ${kind}`);
    // Opt-in (LANNER_BENCH_SQL_TEXTS=1): each statement's first words too, to find where they come from.
    if (SQL_TEXTS) count(`sql text ${text.replace(/\s+/g, ' ').slice(0, 90)}`);
    if (kind === 'BEGIN' || (kind === 'START' && /^START\s+TRANSACTION/i.test(text))) {
      client[IN_TRANSACTION] = true;
      count('transactions');
    } else if (kind === 'COMMIT' || kind === 'ROLLBACK' || kind === 'END') {
      client[IN_TRANSACTION] = false;
    } else if (!client[IN_TRANSACTION]) {
      count('transactions');
    }
  });

  // Kafka requests by API (Produce, Fetch, OffsetCommit, Heartbeat...).
  wrapMethod('Kafka requests', fromWorkspace('kafkajs/src/network/connection.js').prototype, 'send', (_connection, [sent]) =>
    count(`kafka ${sent?.request?.apiName ?? '?'}`),
  );

  // Queue messages by topic (the run's namespace prefix left out). kafkajs's index takes its
  // producer factory from this module when it loads, so replacing the export here is enough.
  const namespace = process.env.LANNER_KAFKA_NAMESPACE ?? '';
  const topicName = (topic) =>
    namespace && String(topic).startsWith(namespace) ? String(topic).slice(namespace.length) : String(topic);
  const producerPath = require.resolve(
    path.join(__dirname, '..', '..', '..', 'node_modules', 'kafkajs', 'src', 'producer', 'index.js'),
  );
  const createProducer = require(producerPath);
  require.cache[producerPath].exports = function countedProducer(...args) {
    const producer = createProducer(...args);
    const { send, sendBatch } = producer;
    producer.send = (record) => {
      count(`message ${topicName(record?.topic)}`, record?.messages?.length ?? 0);
      return send(record);
    };
    producer.sendBatch = (batch) => {
      for (const one of batch?.topicMessages ?? []) count(`message ${topicName(one.topic)}`, one.messages?.length ?? 0);
      return sendBatch(batch);
    };
    return producer;
  };

  // gRPC messages received (every message one process sends, another receives).
  const decoder = fromWorkspace('@grpc/grpc-js/build/src/stream-decoder.js').StreamDecoder?.prototype;
  if (decoder) {
    const write = decoder.write;
    decoder.write = function countedWrite(...args) {
      const messages = write.apply(this, args);
      if (Array.isArray(messages) && messages.length > 0) count('grpc received', messages.length);
      return messages;
    };
  } else process.stderr.write('bench counter: cannot count gRPC messages\n');

  const role = process.argv[process.argv.indexOf('server') + 1];
  const name =
    process.env.LANNER_WORKER_NAME ?? (process.argv.includes('server') && role ? role : path.basename(process.argv[1] ?? 'node'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${process.pid}.json`);
  const flush = () => {
    if (!changed) return;
    changed = false;
    const temporary = `${file}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify({ name, pid: process.pid, counts }));
    fs.renameSync(temporary, file);
  };
  flush();
  setInterval(flush, 200).unref();
  process.on('exit', flush);
}
