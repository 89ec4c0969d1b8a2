import dagre from '@dagrejs/dagre';
import { Background, Controls, type Edge, type Node, ReactFlow } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';
import { flowGraph, shortType } from '../lib/flow-graph';

const NODE_WIDTH = 170;
const NODE_HEIGHT = 44;

export interface TopologyProps {
  readonly flow: { tasks?: unknown; errors?: unknown; finally?: unknown };
  /** The state of each task (by task id) on an execution's page: nodes are coloured by it. */
  readonly states?: Readonly<Record<string, string>>;
}

/** The flow's topology, laid out top to bottom by dagre and drawn by React Flow (loaded lazily). */
export default function Topology({ flow, states }: TopologyProps) {
  const graph = useMemo(() => flowGraph(flow), [flow]);
  const { nodes, edges } = useMemo(() => {
    const layout = new dagre.graphlib.Graph();
    layout.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 36 });
    layout.setDefaultEdgeLabel(() => ({}));
    for (const node of graph.nodes) layout.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
    for (const edge of graph.edges) layout.setEdge(edge.from, edge.to);
    dagre.layout(layout);
    const nodes: Node[] = graph.nodes.map((node) => {
      const { x, y } = layout.node(node.id);
      const state = states?.[node.taskId];
      return {
        id: node.id,
        position: { x: x - NODE_WIDTH / 2, y: y - NODE_HEIGHT / 2 },
        data: { label: `${node.taskId} · ${shortType(node.type)}` },
        className: `topology-node${node.flowable ? ' flowable' : ''}${state ? ` state-${state.toLowerCase()}` : ''}`,
        ariaLabel: state ? `${node.taskId} ${state}` : node.taskId,
        style: { width: NODE_WIDTH },
        draggable: false,
        connectable: false,
      };
    });
    const edges: Edge[] = graph.edges.map((edge, index) => ({
      id: `e${index}`,
      source: edge.from,
      target: edge.to,
      label: edge.label,
    }));
    return { nodes, edges };
  }, [graph, states]);

  if (graph.nodes.length === 0) return <p className="empty">This flow has no tasks yet.</p>;
  return (
    <div className="topology" role="figure" aria-label="Flow topology">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        nodesDraggable={false}
        nodesConnectable={false}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
