import { OffsetCommitter, type TopicOffsets } from './offset-committer';

/** OffsetCommit requests the test answers by hand. */
function coordinator() {
  const requests: Array<{ topics: TopicOffsets[]; answer: (error?: Error) => void }> = [];
  const request = (topics: TopicOffsets[]) =>
    new Promise<void>((resolve, reject) => requests.push({ topics, answer: (error) => (error ? reject(error) : resolve()) }));
  const shape = (index: number) =>
    requests[index].topics.flatMap(({ topic, partitions }) => partitions.map(({ partition, offset }) => `${topic}/${partition}@${offset}`)).sort();
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { requests, request, shape, settle };
}

describe('OffsetCommitter', () => {
  it('sends a lone commit at once and resolves when the broker answers', async () => {
    const { requests, request, shape, settle } = coordinator();
    const committer = new OffsetCommitter();
    let done = false;
    const commit = committer.commit(request, 'jobs', 0, '5').then(() => (done = true));
    await settle();
    expect(requests).toHaveLength(1);
    expect(shape(0)).toEqual(['jobs/0@5']);
    expect(done).toBe(false);
    requests[0].answer();
    await commit;
    expect(done).toBe(true);
  });

  it('merges every commit asked for while one is in flight into the next request, the latest offset of a partition winning', async () => {
    const { requests, request, shape, settle } = coordinator();
    const committer = new OffsetCommitter();
    const first = committer.commit(request, 'jobs', 0, '1');
    await settle();
    const later = [
      committer.commit(request, 'jobs', 0, '2'),
      committer.commit(request, 'jobs', 1, '7'),
      committer.commit(request, 'jobs', 0, '3'),
      committer.commit(request, 'events', 0, '40'),
    ];
    await settle();
    expect(requests).toHaveLength(1);
    requests[0].answer();
    await first;
    await settle();
    expect(requests).toHaveLength(2);
    expect(shape(1)).toEqual(['events/0@40', 'jobs/0@3', 'jobs/1@7']);
    requests[1].answer();
    await Promise.all(later);
    await committer.flush();
    expect(requests).toHaveLength(2);
  });

  it('commits asked for in the same turn share the first request', async () => {
    const { requests, request, shape, settle } = coordinator();
    const committer = new OffsetCommitter();
    const commits = [committer.commit(request, 'jobs', 0, '1'), committer.commit(request, 'jobs', 2, '9')];
    await settle();
    expect(requests).toHaveLength(1);
    expect(shape(0)).toEqual(['jobs/0@1', 'jobs/2@9']);
    requests[0].answer();
    await Promise.all(commits);
  });

  it('a failed request rejects its callers and is not sent again; later commits still go', async () => {
    const { requests, request, shape, settle } = coordinator();
    const committer = new OffsetCommitter();
    const failed = committer.commit(request, 'jobs', 0, '4');
    await settle();
    requests[0].answer(new Error('REBALANCE_IN_PROGRESS'));
    await expect(failed).rejects.toThrow('REBALANCE_IN_PROGRESS');
    await committer.flush();
    expect(requests).toHaveLength(1);

    const next = committer.commit(request, 'jobs', 0, '6');
    await settle();
    expect(requests).toHaveLength(2);
    expect(shape(1)).toEqual(['jobs/0@6']);
    requests[1].answer();
    await next;
  });

  it('offsets not sent yet are dropped on discard, and the one in flight still completes', async () => {
    const { requests, request, settle } = coordinator();
    const committer = new OffsetCommitter();
    const inFlight = committer.commit(request, 'jobs', 0, '1');
    await settle();
    const pending = committer.commit(request, 'jobs', 0, '2');
    committer.discardPending(new Error('rejoined'));
    await expect(pending).rejects.toThrow('rejoined');
    requests[0].answer();
    await inFlight;
    await committer.flush();
    expect(requests).toHaveLength(1);
  });

  it('flush waits until every offset asked for so far has been answered', async () => {
    const { requests, request, settle } = coordinator();
    const committer = new OffsetCommitter();
    void committer.commit(request, 'jobs', 0, '1');
    await settle();
    void committer.commit(request, 'jobs', 0, '2');
    let flushed = false;
    const flush = committer.flush().then(() => (flushed = true));
    requests[0].answer();
    await settle();
    expect(flushed).toBe(false);
    expect(requests).toHaveLength(2);
    requests[1].answer();
    await flush;
    expect(flushed).toBe(true);
  });

  it('sends through the newest request function given (the member of the latest batch)', async () => {
    const older = coordinator();
    const newer = coordinator();
    const committer = new OffsetCommitter();
    const first = committer.commit(older.request, 'jobs', 0, '1');
    await older.settle();
    const second = committer.commit(newer.request, 'jobs', 0, '2');
    older.requests[0].answer();
    await first;
    await newer.settle();
    expect(older.requests).toHaveLength(1);
    expect(newer.requests).toHaveLength(1);
    newer.requests[0].answer();
    await second;
  });
});
