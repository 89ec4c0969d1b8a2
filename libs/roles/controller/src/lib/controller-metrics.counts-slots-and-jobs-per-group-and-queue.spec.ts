import { MetricsRegistry } from '@lanner/runtime';
import { ControllerMetrics } from './controller-metrics';
import { ManualClock } from '../testing/manual-clock';
import { metricSample as sample } from '../testing/metrics-text';
import { SpecDispatch, settle, worker } from './dispatch.spec-support';

describe('controller metrics', () => {
  it('reports slots per worker group and queue from the live ledgers at scrape, and counts dispatched and completed jobs', async () => {
    const registry = new MetricsRegistry('controller');
    const dispatch = new SpecDispatch();
    const clock = new ManualClock();
    const metrics = new ControllerMetrics(registry, dispatch.fleet, clock);
    const gpu = worker(
      'w-gpu',
      8,
      [
        { workerQueueId: 'gpu', reservedPercent: 50, mode: 'STRICT' },
        { workerQueueId: 'etl', mode: 'ELASTIC' },
      ],
      'gpu-team',
    );
    const plain = worker('w-plain', 2, [{ workerQueueId: 'etl', mode: 'STRICT' }]);
    gpu.session.credit = 8;
    dispatch.join(gpu, plain);
    const [first] = dispatch.submit('gpu', 3);
    dispatch.submit('etl', 5);
    await settle();

    let text = await registry.render();
    expect(sample(text, 'lanner_controller_worker_slots', { worker_group: 'gpu-team', worker_queue: 'gpu' })).toBe(8);
    expect(sample(text, 'lanner_controller_worker_slots_reserved', { worker_group: 'gpu-team', worker_queue: 'gpu' })).toBe(4);
    expect(sample(text, 'lanner_controller_worker_slots_used', { worker_group: 'gpu-team', worker_queue: 'gpu' })).toBe(3);
    // etl takes the 4 shared slots of the gpu worker; the other worker has no credit.
    expect(sample(text, 'lanner_controller_worker_slots_used', { worker_group: 'gpu-team', worker_queue: 'etl' })).toBe(4);
    expect(sample(text, 'lanner_controller_worker_slots', { worker_group: 'default', worker_queue: 'etl' })).toBe(2);
    expect(sample(text, 'lanner_controller_jobs_waiting_for_slot', { worker_queue: 'etl' })).toBe(1);
    expect(sample(text, 'lanner_controller_connected_workers', { worker_group: 'gpu-team' })).toBe(1);
    expect(sample(text, 'lanner_controller_connected_workers', { worker_group: 'default' })).toBe(1);

    metrics.jobDispatched('gpu-team', 'gpu', performance.now() - 20, new Date(clock.nowMs() - 1_000).toISOString());
    dispatch.finish(first);
    metrics.jobCompleted('gpu-team', 'gpu', 'SUCCESS');
    dispatch.fleet.remove(plain.session);

    text = await registry.render();
    expect(sample(text, 'lanner_controller_worker_slots_used', { worker_group: 'gpu-team', worker_queue: 'gpu' })).toBe(2);
    expect(sample(text, 'lanner_controller_jobs_dispatched_total', { worker_group: 'gpu-team', worker_queue: 'gpu' })).toBe(1);
    expect(
      sample(text, 'lanner_controller_jobs_completed_total', { worker_group: 'gpu-team', worker_queue: 'gpu', state: 'SUCCESS' }),
    ).toBe(1);
    expect(sample(text, 'lanner_controller_dispatch_latency_seconds_count', { worker_queue: 'gpu', since: 'taken' })).toBe(1);
    expect(
      sample(text, 'lanner_controller_dispatch_latency_seconds_sum', { worker_queue: 'gpu', since: 'queued' }),
    ).toBeGreaterThanOrEqual(1);
    // The worker that left is no longer counted.
    expect(sample(text, 'lanner_controller_connected_workers', { worker_group: 'default' })).toBeUndefined();
    expect(sample(text, 'lanner_controller_worker_slots', { worker_group: 'default', worker_queue: 'etl' })).toBeUndefined();
  });
});
