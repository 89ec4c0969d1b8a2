import { flowGraph } from './flow-graph';

const log = (id: string) => ({ id, type: 'io.kestra.plugin.core.log.Log' });
const edgesOf = (flow: Parameters<typeof flowGraph>[0]) =>
  flowGraph(flow).edges.map((edge) => `${edge.from}->${edge.to}${edge.label ? `:${edge.label}` : ''}`);

describe('flowGraph', () => {
  it('chains top-level tasks in order', () => {
    expect(edgesOf({ tasks: [log('a'), log('b'), log('c')] })).toEqual(['a->b', 'b->c']);
  });

  it("puts a Parallel's branches side by side and continues the sequence after the flowable", () => {
    const flow = {
      tasks: [{ id: 'fan', type: 'io.kestra.plugin.core.flow.Parallel', tasks: [log('a'), log('b')] }, log('after')],
    };
    expect(edgesOf(flow)).toEqual(['fan->a', 'fan->b', 'fan->after']);
    expect(flowGraph(flow).nodes.find((node) => node.id === 'fan')?.flowable).toBe(true);
  });

  it('draws a Dag from dependsOn, its roots under the Dag task, ignoring unknown dependencies', () => {
    const dag = {
      id: 'graph',
      type: 'io.kestra.plugin.core.flow.Dag',
      tasks: [
        { task: log('x'), dependsOn: [] },
        { task: log('y'), dependsOn: ['x', 'nowhere'] },
        { task: log('z'), dependsOn: ['x', 'y'] },
      ],
    };
    expect(edgesOf({ tasks: [dag] })).toEqual(['graph->x', 'x->y', 'x->z', 'y->z']);
  });

  it("labels the branches of If and Switch, and a flowable's errors", () => {
    const flow = {
      tasks: [
        {
          id: 'check',
          type: 'io.kestra.plugin.core.flow.If',
          then: [log('yes'), log('more')],
          else: [log('no')],
          errors: [log('oops')],
        },
        { id: 'route', type: 'io.kestra.plugin.core.flow.Switch', cases: { blue: [log('b1')], red: [log('r1')] } },
      ],
    };
    expect(edgesOf(flow).sort()).toEqual(
      [
        'check->yes:then',
        'yes->more',
        'check->no:else',
        'check->oops:errors',
        'route->b1:blue',
        'route->r1:red',
        'check->route',
      ].sort(),
    );
  });

  it("hangs the flow's own errors and finally tasks under nodes of their own", () => {
    const graph = flowGraph({ tasks: [log('a')], errors: [log('alert')], finally: [log('cleanup')] });
    expect(graph.edges.map((edge) => `${edge.from}->${edge.to}`)).toEqual(['(errors)->alert', '(finally)->cleanup']);
    expect(graph.nodes.map((node) => node.id)).toEqual(['a', '(errors)', 'alert', '(finally)', 'cleanup']);
  });
});
