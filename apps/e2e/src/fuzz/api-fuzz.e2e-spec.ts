import { readFileSync } from 'node:fs';
import { readClusterState } from '../harness/cluster-state';
import { fuzzApi, type FuzzReport, rssBytes, runOrdinaryFlow } from './api-fuzz';

// The reduced fuzz run of `npm test` (the full one is `node tools/fuzz/run.js`):
// a few hundred requests generated from the OpenAPI document with a fixed seed,
// against the suite's real `lanner server standalone`.

const SEED = 20261201;
const REQUESTS = 400;
/** Growth of the server's RSS over the run that still counts as bounded (it holds nothing per request). */
const RSS_GROWTH_BYTES = 512 * 1024 * 1024;

/** The standalone process's pid, from its own "ready" log line. */
function standalonePid(logFile: string): number {
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('lanner standalone ready')) continue;
    const parsed = JSON.parse(line) as { pid?: number };
    if (typeof parsed.pid === 'number') return parsed.pid;
  }
  throw new Error(
    `no "lanner standalone ready" line with a pid in ${logFile} (the fuzz needs LANNER_E2E_LOG_LEVEL at info or below)`,
  );
}

describe('the REST API under random and hostile requests', () => {
  const state = readClusterState();
  const target = { apiUrl: state.apiUrl, adminToken: state.adminToken, pid: standalonePid(state.logFiles['standalone']) };
  let report: FuzzReport;

  beforeAll(async () => {
    report = await fuzzApi(target, { seed: SEED, requests: REQUESTS, secrets: [state.workDir] });
    process.stdout.write(`api fuzz (seed ${SEED}): ${JSON.stringify({ ...report, findings: report.findings.length })}\n`);
  }, 600_000);

  it('sends requests to every operation of the OpenAPI document', () => {
    expect(report.requests).toBe(REQUESTS);
    expect(report.operationsCovered).toBe(report.operations);
  });

  it('answers every request, with no 5xx and no stack trace, SQL, file path or admin token in any answer', () => {
    expect(report.findings).toEqual([]);
    expect(Object.keys(report.statuses).filter((status) => /^5/.test(status))).toEqual([]);
  });

  it('keeps the server memory bounded', () => {
    expect(report.startRssBytes).toBeGreaterThan(0);
    expect(report.maxRssBytes - report.startRssBytes).toBeLessThan(RSS_GROWTH_BYTES);
  });

  it('is still healthy afterwards and runs an ordinary flow to SUCCESS', async () => {
    expect(rssBytes(target.pid)).toBeGreaterThan(0);
    expect((await fetch(`${state.apiUrl}/health/ready`)).status).toBe(200);
    expect((await runOrdinaryFlow(target, 'fuzz.after', 'ordinary')).state).toBe('SUCCESS');
  });
});
