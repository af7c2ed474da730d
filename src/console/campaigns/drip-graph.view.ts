/**
 * A drip's graph drawn as SVG on the server: nodes in rows by their distance from the start (the longest path, so every
 * edge points down), a condition's "yes" branch left of its "no" branch, and each node's figures inside its box. Colours
 * come from console.css classes; the same facts are in a table beside it for screen readers and narrow screens.
 */
import type { DripNode } from '../../marketing/drips/drips.graph.ts';
import { successorsOf } from '../../marketing/drips/drips.graph.ts';
import type { DripDiagram, NodeCounts } from '../../marketing/drips/drips.counts.ts';
import { html, type SafeHtml } from '../../http/html.ts';

const W = 240;
const H = 62;
const GAP_X = 28;
const GAP_Y = 46;
const MAX_LABEL = 25;

const clip = (s: string) => (s.length > MAX_LABEL ? `${s.slice(0, MAX_LABEL - 1)}…` : s);

/** A wait's length in words. */
export function waitText(ms: number): string {
  const units: [number, string][] = [
    [7 * 86_400_000, 'week'],
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units)
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms / size === 1 ? '' : 's'}`;
  return `${Math.round(ms / 60_000)} minutes`;
}

/** What a node does, in a few words. */
export function nodeLabel(n: DripNode, d: DripDiagram): string {
  switch (n.type) {
    case 'start':
      return n.trigger === 'form_submission' ? 'Start: a form is submitted' : 'Start: joins the list';
    case 'email':
      return `Email: ${d.subjects.get(n.campaign_mailing_id) ?? `mailing ${n.campaign_mailing_id}`}`;
    case 'wait':
      return `Wait ${waitText(n.ms)}`;
    case 'condition':
      return `${n.condition === 'opened' ? 'Opened' : 'Clicked'} the last email?`;
    case 'end':
      return 'End';
  }
}

/** A node's figures in a few words. */
export function countsText(n: DripNode, c: NodeCounts): string {
  const parts = [`${c.enrolled} here`];
  if (n.type === 'email') parts.push(`${c.emails} sent`);
  if (c.completed > 0 || n.type === 'end') parts.push(`${c.completed} completed`);
  if (c.stopped > 0) parts.push(`${c.stopped} stopped`);
  return parts.join(' · ');
}

interface Placed {
  node: DripNode;
  x: number;
  y: number;
}

/** Positions of the nodes: rows by longest distance from the start, in depth-first order (yes before no) within a row. */
export function layout(d: DripDiagram): { placed: Map<string, Placed>; width: number; height: number } {
  const g = d.graph;
  const depth = new Map<string, number>();
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string) => {
    if (seen.has(id)) return;
    seen.add(id);
    order.push(id);
    for (const next of successorsOf(g, id)) visit(next);
  };
  if (g.startId !== null) visit(g.startId);
  for (const id of g.nodes.keys()) visit(id);
  // The graph is acyclic: relaxing the edges as many times as there are nodes settles the longest distances.
  for (const id of order) depth.set(id, 0);
  for (let pass = 0, changed = true; changed && pass < order.length; pass++) {
    changed = false;
    for (const id of order)
      for (const next of successorsOf(g, id))
        if ((depth.get(next) ?? 0) < depth.get(id)! + 1) {
          depth.set(next, depth.get(id)! + 1);
          changed = true;
        }
  }
  const rows: string[][] = [];
  for (const id of order) (rows[depth.get(id)!] ??= []).push(id);
  const widest = Math.max(1, ...rows.map((r) => r.length));
  const width = widest * (W + GAP_X) + GAP_X;
  const placed = new Map<string, Placed>();
  rows.forEach((row, r) => {
    const left = (width - (row.length * (W + GAP_X) - GAP_X)) / 2;
    row.forEach((id, i) =>
      placed.set(id, { node: g.nodes.get(id)!, x: left + i * (W + GAP_X), y: GAP_Y / 2 + r * (H + GAP_Y) }),
    );
  });
  return { placed, width, height: rows.length * (H + GAP_Y) };
}

/** The SVG of a drip's graph. */
export function dripSvg(d: DripDiagram): SafeHtml {
  const { placed, width, height } = layout(d);
  const edges: SafeHtml[] = [];
  for (const from of placed.values()) {
    const b = d.graph.branches.get(from.node.id);
    const targets = b
      ? [
          [b.yes, 'yes'],
          [b.no, 'no'],
        ]
      : successorsOf(d.graph, from.node.id).map((id) => [id, '']);
    for (const [toId, label] of targets) {
      const to = placed.get(toId!)!;
      const x1 = from.x + W / 2;
      const y1 = from.y + H;
      const x2 = to.x + W / 2;
      const y2 = to.y;
      const mid = (y1 + y2) / 2;
      edges.push(html`<path class="drip-edge" d="M${x1} ${y1} C${x1} ${mid} ${x2} ${mid} ${x2} ${y2 - 4}" marker-end="url(#drip-arrow)"></path>
        ${label ? html`<text class="drip-branch" x="${(x1 + x2) / 2 + (label === 'yes' ? -14 : 4)}" y="${mid - 4}">${label}</text>` : ''}`);
    }
  }
  const nodes = [...placed.values()].map((p) => {
    const c = d.counts.get(p.node.id)!;
    return html`<g class="drip-node drip-${p.node.type}">
      <title>${nodeLabel(p.node, d)}: ${countsText(p.node, c)}</title>
      <rect x="${p.x}" y="${p.y}" width="${W}" height="${H}" rx="8"></rect>
      <text class="drip-label" x="${p.x + 10}" y="${p.y + 24}">${clip(nodeLabel(p.node, d))}</text>
      <text class="drip-counts" x="${p.x + 10}" y="${p.y + 46}">${countsText(p.node, c)}</text>
    </g>`;
  });
  return html`<svg
    class="drip-graph"
    viewBox="0 0 ${width} ${Math.max(height, H + GAP_Y)}"
    role="img"
    aria-labelledby="drip-graph-title"
  >
    <title id="drip-graph-title">The steps of ${d.drip.name}, from the start down; the table below lists the same</title>
    <defs>
      <marker id="drip-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
        <path class="drip-arrow" d="M0 0 L10 5 L0 10 z"></path>
      </marker>
    </defs>
    ${edges} ${nodes}
  </svg>`;
}
