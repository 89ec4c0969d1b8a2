import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@lanner/testing';
import type { ApiSpecFixture } from './api-spec-fixture';

const WORKSPACE = resolve(__dirname, '../../../../..');

/**
 * The indexer as users run it (`lanner server indexer`), in a process of its
 * own, on the api spec's database and under its topic prefix (as the Kafka
 * namespace), so it reads what the spec's api publishes.
 */
export class IndexerProcess {
  private readonly logFile: string;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly port: number,
    logFile: string,
  ) {
    this.logFile = logFile;
    this.exited = new Promise((done) => child.once('exit', () => done()));
  }

  static async start(api: ApiSpecFixture): Promise<IndexerProcess> {
    const port = await freePort();
    const logFile = join(mkdtempSync(join(tmpdir(), 'lanner-api-indexer-')), 'indexer.log');
    const output = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, [join(WORKSPACE, 'bin/lanner.js'), 'server', 'indexer'], {
        cwd: WORKSPACE,
        env: {
          ...process.env,
          DATABASE_URL: api.databaseUrl,
          LANNER_KAFKA_NAMESPACE: api.topicPrefix,
          LANNER_KAFKA_CLIENT_ID: `api-spec-indexer-${port}`,
          LANNER_HTTP_PORT: String(port),
          LANNER_HTTP_HOST: '127.0.0.1',
          LANNER_LOG_LEVEL: 'warn',
          KAFKAJS_NO_PARTITIONER_WARNING: '1',
        },
        stdio: ['ignore', output, output],
      });
    } finally {
      closeSync(output);
    }
    const indexer = new IndexerProcess(child, port, logFile);
    await indexer.ready();
    return indexer;
  }

  private async ready(): Promise<void> {
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`the indexer exited:\n${this.log()}`);
      const answer = await fetch(`http://127.0.0.1:${this.port}/health/ready`).catch(() => undefined);
      if (answer?.status === 200) return;
      await new Promise((done) => setTimeout(done, 300));
    }
    throw new Error(`the indexer is not ready:\n${this.log()}`);
  }

  log(): string {
    return readFileSync(this.logFile, 'utf8').split('\n').slice(-30).join('\n');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}
