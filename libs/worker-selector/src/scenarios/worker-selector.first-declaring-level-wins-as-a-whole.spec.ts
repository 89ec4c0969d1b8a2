import { resolveSelector, type WorkerSelector } from '../index';

const gpuFail: WorkerSelector = { tags: ['gpu'], fallback: 'FAIL' };
const eu: WorkerSelector = { tags: ['eu'], match: 'ANY' };
const nsSelector: WorkerSelector = { tags: ['etl'] };
const tenantSelector: WorkerSelector = { tags: ['shared'] };

describe('worker selector: the first level that declares a selector wins as a whole', () => {
  const namespaces = new Map([['company', nsSelector]]);

  it('a task selector wins over the flow, namespace and tenant ones', () => {
    const resolved = resolveSelector({ task: eu, flow: gpuFail, namespace: 'company.team', namespaces, tenant: tenantSelector });
    expect(resolved).toEqual({ selector: eu, level: 'TASK' });
  });

  it("does not merge the flow's fallback into the task's selector", () => {
    const resolved = resolveSelector({ task: eu, flow: gpuFail, namespace: 'company', namespaces, tenant: tenantSelector });
    expect(resolved.selector).toEqual({ tags: ['eu'], match: 'ANY' });
    expect(resolved.selector?.fallback).toBeUndefined();
  });

  it('the flow selector applies when the task declares none', () => {
    expect(resolveSelector({ flow: gpuFail, namespace: 'company', namespaces, tenant: tenantSelector })).toEqual({
      selector: gpuFail,
      level: 'FLOW',
    });
  });

  it('a namespace selector applies when neither task nor flow declares one', () => {
    expect(resolveSelector({ namespace: 'company.team', namespaces, tenant: tenantSelector })).toEqual({
      selector: nsSelector,
      level: 'NAMESPACE',
      namespace: 'company',
    });
  });

  it('the tenant selector applies last', () => {
    expect(resolveSelector({ namespace: 'other.team', namespaces, tenant: tenantSelector })).toEqual({
      selector: tenantSelector,
      level: 'TENANT',
    });
  });

  it('no level declaring a selector means no selector (the default queue)', () => {
    expect(resolveSelector({ task: null, flow: undefined, namespace: 'other', namespaces: new Map() })).toEqual({
      selector: undefined,
      level: 'NONE',
    });
  });

  it('a task selector with no tags still wins: it asks for the default queue explicitly', () => {
    const explicitDefault: WorkerSelector = { tags: [] };
    expect(resolveSelector({ task: explicitDefault, flow: gpuFail, namespace: 'company', namespaces }).selector).toBe(
      explicitDefault,
    );
  });
});
