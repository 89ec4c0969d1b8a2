import { namespaceAncestors, resolveSelector, type WorkerSelector } from '../index';

describe('worker selector: the nearest namespace ancestor wins', () => {
  const a: WorkerSelector = { tags: ['a'] };
  const ab: WorkerSelector = { tags: ['ab'] };
  const abc: WorkerSelector = { tags: ['abc'] };

  it('walks a.b.c, then a.b, then a', () => {
    expect(namespaceAncestors('a.b.c')).toEqual(['a.b.c', 'a.b', 'a']);
  });

  it("the flow's own namespace comes first", () => {
    const namespaces = new Map([
      ['a', a],
      ['a.b', ab],
      ['a.b.c', abc],
    ]);
    expect(resolveSelector({ namespace: 'a.b.c', namespaces })).toMatchObject({ selector: abc, namespace: 'a.b.c' });
  });

  it('then the closest parent that declares one', () => {
    const namespaces = new Map([
      ['a', a],
      ['a.b', ab],
    ]);
    expect(resolveSelector({ namespace: 'a.b.c.d', namespaces })).toMatchObject({ selector: ab, namespace: 'a.b' });
  });

  it('a namespace that only shares a name prefix is not an ancestor', () => {
    const namespaces = new Map([['a.b', ab]]);
    expect(resolveSelector({ namespace: 'a.bc', namespaces })).toEqual({ selector: undefined, level: 'NONE' });
  });

  it('a child namespace does not apply to its parent', () => {
    const namespaces = new Map([['a.b.c', abc]]);
    expect(resolveSelector({ namespace: 'a.b', namespaces }).level).toBe('NONE');
  });
});
