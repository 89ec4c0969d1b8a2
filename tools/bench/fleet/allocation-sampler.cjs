// Where a process allocates, short-lived objects included (what sets the pace of
// young-generation collections). Preload it into the controller, then signal it:
//   node tools/bench/fleet/run.js ... --controller-node-args "-r ./tools/bench/fleet/allocation-sampler.cjs"
//   kill -USR2 <controller pid>   # starts sampling
//   kill -USR2 <controller pid>   # stops, writes $LANNER_ALLOCATION_PROFILE (default /tmp/lanner-allocations.heapprofile)
//   node tools/bench/fleet/allocation-summary.cjs /tmp/lanner-allocations.heapprofile
// V8's sampling heap profiler, told to keep the samples of collected objects.
// With LANNER_ALLOCATION_SURVIVORS=1 it drops the samples of objects that died
// young, so what is left is what survived a scavenge: what got promoted to the
// old generation (and so sets the pace of mark-compacts), or was still live.
// A scavenge runs just before the profile is taken, so the young garbage of the
// last moments is not counted as surviving.
'use strict';
const inspector = require('node:inspector');
const fs = require('node:fs');

const output = process.env.LANNER_ALLOCATION_PROFILE || '/tmp/lanner-allocations.heapprofile';
const survivorsOnly = process.env.LANNER_ALLOCATION_SURVIVORS === '1';
const scavenge = survivorsOnly ? exposedGc() : undefined;

function exposedGc() {
  require('node:v8').setFlagsFromString('--expose-gc');
  return require('node:vm').runInNewContext('gc');
}
const session = new inspector.Session();
session.connect();
let startedAt;

function report(what, error) {
  process.stderr.write(`allocation sampler: ${what}${error ? `: ${error.message}` : ''}\n`);
}

process.on('SIGUSR2', () => {
  if (startedAt === undefined) {
    const options = {
      samplingInterval: 16384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !survivorsOnly,
    };
    session.post('HeapProfiler.startSampling', options, (error) => {
      if (error) return report('could not start', error);
      startedAt = Date.now();
      report('sampling');
    });
    return;
  }
  if (scavenge) scavenge({ type: 'minor' });
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (error) return report('could not stop', error);
    const seconds = (Date.now() - startedAt) / 1000;
    startedAt = undefined;
    fs.writeFileSync(output, JSON.stringify({ seconds, profile: result.profile }));
    report(`${seconds.toFixed(1)} s written to ${output}`);
  });
});
