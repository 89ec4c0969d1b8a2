import { chooseServiceSource, memoizeProbe } from './source-chooser';

/** A Docker probe that records whether anyone asked it. */
function dockerProbe(answer: boolean): { ask: () => Promise<boolean>; asked: () => number } {
  let calls = 0;
  return {
    ask: async () => {
      calls += 1;
      return answer;
    },
    asked: () => calls,
  };
}

describe('choosing where a service comes from', () => {
  it('uses the environment variable and never asks Docker', async () => {
    const docker = dockerProbe(true);
    await expect(chooseServiceSource({ fromEnv: ' 10.0.0.5:9092 ', dockerAnswers: docker.ask })).resolves.toEqual({
      source: 'env',
      connection: '10.0.0.5:9092',
    });
    expect(docker.asked()).toBe(0);
  });

  it('uses Docker when nothing is given and an engine answers', async () => {
    await expect(chooseServiceSource({ fromEnv: undefined, dockerAnswers: dockerProbe(true).ask })).resolves.toEqual({
      source: 'docker',
    });
  });

  it('falls back to local processes when no engine answers', async () => {
    await expect(chooseServiceSource({ fromEnv: undefined, dockerAnswers: dockerProbe(false).ask })).resolves.toEqual({
      source: 'local',
    });
  });

  it('treats a blank variable as not set', async () => {
    await expect(chooseServiceSource({ fromEnv: '  ', dockerAnswers: dockerProbe(false).ask })).resolves.toEqual({
      source: 'local',
    });
  });

  it('asks Docker once for both services', async () => {
    const docker = dockerProbe(false);
    const shared = memoizeProbe(docker.ask);
    await chooseServiceSource({ fromEnv: undefined, dockerAnswers: shared });
    await chooseServiceSource({ fromEnv: undefined, dockerAnswers: shared });
    expect(docker.asked()).toBe(1);
  });
});
