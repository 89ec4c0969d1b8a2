import { MaintenanceMode } from './maintenance-mode';

describe('what a process knows of maintenance mode', () => {
  it('holds until the stored state was read, and follows the state and its broadcasts', async () => {
    let stored = true;
    const mode = new MaintenanceMode({ get: async () => ({ enabled: stored }) }, { follower: 'spec' });
    const changes: boolean[] = [];
    mode.onChange((enabled) => changes.push(enabled));
    expect(mode.holdsWork).toBe(true);
    expect(mode.enabled).toBeUndefined();

    expect(await mode.refresh()).toBe(true);
    expect(mode.holdsWork).toBe(true);
    mode.apply(false);
    expect(mode.holdsWork).toBe(false);
    stored = true;
    await mode.refresh();
    expect(changes).toEqual([true, false, true]);
  });

  it('keeps what it knew when the store does not answer', async () => {
    let down = false;
    const mode = new MaintenanceMode(
      {
        get: async () => {
          if (down) throw new Error('database unavailable');
          return { enabled: false };
        },
      },
      { follower: 'spec' },
    );
    await mode.refresh();
    down = true;
    expect(await mode.refresh()).toBeUndefined();
    expect(mode.holdsWork).toBe(false);
  });
});
