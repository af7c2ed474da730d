/**
 * The drip graph: `drip_campaign_nodes` parsed into nodes and their successors, and every rule a graph must meet
 * (docs/drips.md). Pure: no database; the mailing ids an email node names are returned for the caller to check.
 */
import { AppError } from '../../errors/app-error.ts';
import { isPrototypeName, ownValue } from '../../own.ts';
import { parseRef } from '../ids.ts';

/** How a drip enrolls subscribers. */
export type StartTrigger = 'subscription' | 'form_submission';

/** One node, normalised. */
export type DripNode =
  | { id: string; type: 'start'; trigger?: StartTrigger; form_id?: string }
  | { id: string; type: 'email'; campaign_mailing_id: string }
  | { id: string; type: 'wait'; ms: number; duration: unknown }
  | { id: string; type: 'condition'; condition: 'opened' | 'clicked' }
  | { id: string; type: 'end' };

/** A validated graph: the nodes by id and where each one leads. */
export interface DripGraph {
  /** Null for the empty graph of a drip not designed yet. */
  startId: string | null;
  nodes: Map<string, DripNode>;
  /** Successor of a start, email or wait node. */
  next: Map<string, string>;
  /** Successors of a condition node. */
  branches: Map<string, { yes: string; no: string }>;
}

const MAX_NODES = 500;
const MAX_WAIT_MS = 366 * 86_400_000;
const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000, weeks: 7 * 86_400_000 } as const;
const TRIGGERS: Record<string, StartTrigger> = {
  subscription: 'subscription',
  subscription_created: 'subscription',
  form_submission: 'form_submission',
};

/** The trigger a start_trigger value names (`subscription_created` is another name of `subscription`); undefined when unknown. */
export function triggerOf(value: string): StartTrigger | undefined {
  return ownValue(TRIGGERS, value.trim().toLowerCase());
}

/** Throws the drip validation error, naming the node (when there is one) and the problem. */
export function invalid(problem: string, nodeId?: string): never {
  const message = nodeId === undefined ? problem : `node "${nodeId}": ${problem}`;
  throw new AppError('marketing.drip_invalid', message, {
    details: [{ field: nodeId ?? 'drip_campaign_nodes', message: problem }],
  });
}

/** Parses and checks `drip_campaign_nodes`; an empty graph (no nodes, no edges) is accepted for a draft. */
export function parseGraph(text: string): DripGraph {
  const doc = readDocument(text);
  const nodes = new Map<string, DripNode>();
  doc.nodes.forEach((raw, i) => {
    const node = readNode(raw, i);
    if (nodes.has(node.id)) invalid('the id is used by more than one node', node.id);
    nodes.set(node.id, node);
  });
  const graph: DripGraph = { startId: null, nodes, next: new Map(), branches: new Map() };
  if (nodes.size === 0 && doc.edges.length === 0) return graph;
  const starts = [...nodes.values()].filter((n) => n.type === 'start');
  if (starts.length === 0) invalid('the graph has no start node');
  if (starts.length > 1)
    invalid(`the graph has ${starts.length} start nodes; it must have exactly one`, starts[1]!.id);
  graph.startId = starts[0]!.id;
  readEdges(doc.edges, graph);
  checkOutgoing(graph);
  checkAcyclicAndReachable(graph);
  checkConditionsFollowEmail(graph);
  return graph;
}

/** The mailing ids the graph's email nodes name. */
export function mailingIds(graph: DripGraph): string[] {
  const ids = new Set<string>();
  for (const n of graph.nodes.values()) if (n.type === 'email') ids.add(n.campaign_mailing_id);
  return [...ids];
}

/** The successors of `nodeId`, for conditions by branch. */
export function successorsOf(graph: DripGraph, nodeId: string): string[] {
  const b = graph.branches.get(nodeId);
  if (b) return [b.yes, b.no];
  const n = graph.next.get(nodeId);
  return n === undefined ? [] : [n];
}

/** drip_campaign_tree_blob: the start node and each node with its type and successors, in a stable order. */
export function treeBlob(graph: DripGraph): string {
  const nodes: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const n of graph.nodes.values()) {
    const b = graph.branches.get(n.id);
    nodes[n.id] = b
      ? { type: n.type, yes: b.yes, no: b.no }
      : { type: n.type, next: graph.next.get(n.id) ?? null };
  }
  return JSON.stringify({ root: graph.startId, nodes });
}

function readDocument(text: string): { nodes: unknown[]; edges: unknown[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    invalid('drip_campaign_nodes is not valid JSON');
  }
  if (!isObject(doc) || !Array.isArray(doc.nodes) || !Array.isArray(doc.edges))
    invalid('drip_campaign_nodes must be a JSON object with a "nodes" array and an "edges" array');
  if (doc.nodes.length > MAX_NODES) invalid(`a drip has at most ${MAX_NODES} nodes`);
  if (doc.edges.length > MAX_NODES * 2) invalid(`a drip has at most ${MAX_NODES * 2} edges`);
  return { nodes: doc.nodes, edges: doc.edges };
}

function readNode(raw: unknown, index: number): DripNode {
  if (!isObject(raw)) invalid(`nodes[${index}] is not an object`);
  const id = typeof raw.id === 'number' ? String(raw.id) : raw.id;
  if (typeof id !== 'string' || !id.trim() || id.length > 100)
    invalid(`nodes[${index}] needs an "id" (a string of 1 to 100 characters)`);
  if (isPrototypeName(id)) invalid(`nodes[${index}]: "${id}" cannot be a node id`);
  switch (raw.type) {
    case 'start':
      return readStart(id, raw);
    case 'email': {
      const mailing = parseRef(raw.campaign_mailing_id as string | number | undefined);
      if (mailing === null)
        invalid('an email node needs "campaign_mailing_id" (the id of a campaign mailing)', id);
      return {
        id,
        type: 'email',
        campaign_mailing_id: 'uuid' in mailing ? mailing.uuid : String(mailing.id),
      };
    }
    case 'wait':
      return { id, type: 'wait', ms: durationMs(raw.duration, id), duration: raw.duration };
    case 'condition':
      if (raw.condition !== 'opened' && raw.condition !== 'clicked')
        invalid('a condition node needs "condition": "opened" or "clicked"', id);
      return { id, type: 'condition', condition: raw.condition };
    case 'end':
      return { id, type: 'end' };
    default:
      return invalid(
        `unknown node type ${JSON.stringify(raw.type ?? null)}; types are start, email, wait, condition, end`,
        id,
      );
  }
}

function readStart(id: string, raw: Record<string, unknown>): DripNode {
  if (raw.trigger === undefined || raw.trigger === null) return { id, type: 'start' };
  const trigger = typeof raw.trigger === 'string' ? triggerOf(raw.trigger) : undefined;
  if (!trigger) invalid('"trigger" must be "subscription" or "form_submission"', id);
  if (trigger === 'subscription') return { id, type: 'start', trigger };
  const formId = typeof raw.form_id === 'number' ? String(raw.form_id) : raw.form_id;
  if (typeof formId !== 'string' || !formId.trim()) invalid('a form_submission start needs "form_id"', id);
  return { id, type: 'start', trigger, form_id: formId.trim() };
}

/** A wait's duration: `{"minutes"|"hours"|"days"|"weeks": n, ...}` or an ISO 8601 duration such as `P2D` or `PT1H30M`. */
function durationMs(value: unknown, id: string): number {
  let ms = 0;
  if (typeof value === 'string') {
    const m =
      /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(
        value.trim(),
      );
    if (!m || value.trim().toUpperCase().endsWith('T'))
      invalid(`the duration ${JSON.stringify(value)} is not an ISO 8601 duration (PnWnDTnHnMnS)`, id);
    const [w, d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0));
    ms = w! * UNIT_MS.weeks + d! * UNIT_MS.days + h! * UNIT_MS.hours + min! * UNIT_MS.minutes + s! * 1000;
  } else if (isObject(value)) {
    for (const [unit, n] of Object.entries(value)) {
      if (!(unit in UNIT_MS))
        invalid(`unknown duration unit "${unit}"; units are minutes, hours, days, weeks`, id);
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
        invalid(`the duration's ${unit} must be a number of at least 0`, id);
      ms += n * UNIT_MS[unit as keyof typeof UNIT_MS];
    }
  } else
    invalid(
      'a wait node needs "duration": {"days": n} (or minutes, hours, weeks) or an ISO 8601 duration',
      id,
    );
  if (!(ms > 0)) invalid('the wait must be longer than zero', id);
  if (ms > MAX_WAIT_MS) invalid('the wait must be at most 366 days', id);
  return Math.round(ms);
}

function readEdges(edges: unknown[], graph: DripGraph): void {
  const seen = new Map<string, { plain: number; yes: string[]; no: string[] }>();
  edges.forEach((raw, i) => {
    if (!isObject(raw)) invalid(`edges[${i}] is not an object`);
    const from = endpoint(raw.from ?? raw.source);
    const to = endpoint(raw.to ?? raw.target);
    if (from === undefined || to === undefined) invalid(`edges[${i}] needs "from" and "to" (node ids)`);
    const source = graph.nodes.get(from);
    if (!source) invalid(`edges[${i}] starts at "${from}", which is not a node (a dangling edge)`);
    if (!graph.nodes.has(to))
      invalid(`an edge leads to "${to}", which is not a node (a dangling edge)`, from);
    if (to === graph.startId) invalid('no edge may lead back to the start node', from);
    const out = seen.get(from) ?? { plain: 0, yes: [], no: [] };
    seen.set(from, out);
    const branch = raw.branch;
    if (source.type === 'condition') {
      if (branch !== 'yes' && branch !== 'no')
        invalid(`an edge from a condition needs "branch": "yes" or "no"`, from);
      out[branch].push(to);
    } else {
      if (branch !== undefined && branch !== null) invalid(`only a condition's edges carry a branch`, from);
      out.plain++;
      graph.next.set(from, to);
    }
  });
  for (const [from, out] of seen) {
    const node = graph.nodes.get(from)!;
    if (node.type === 'end') invalid('an end node has no outgoing edge', from);
    if (node.type === 'condition') {
      if (out.yes.length !== 1 || out.no.length !== 1)
        invalid('a condition needs exactly one "yes" edge and one "no" edge', from);
      graph.branches.set(from, { yes: out.yes[0]!, no: out.no[0]! });
    } else if (out.plain > 1)
      invalid(`a ${node.type} node has exactly one outgoing edge; it has ${out.plain}`, from);
  }
}

function checkOutgoing(graph: DripGraph): void {
  for (const n of graph.nodes.values()) {
    if (n.type === 'end') continue;
    if (n.type === 'condition' && !graph.branches.has(n.id))
      invalid('a condition needs a "yes" edge and a "no" edge', n.id);
    if (n.type !== 'condition' && !graph.next.has(n.id))
      invalid(`a ${n.type} node needs an outgoing edge (finish paths with an end node)`, n.id);
  }
}

/** Depth-first from the start: a node met again on the current path is a cycle; a node never met is unreachable. */
function checkAcyclicAndReachable(graph: DripGraph): void {
  const done = new Set<string>();
  const onPath = new Set<string>();
  const visit = (id: string): void => {
    if (done.has(id)) return;
    if (onPath.has(id)) invalid('the graph has a cycle through this node', id);
    onPath.add(id);
    for (const s of successorsOf(graph, id)) visit(s);
    onPath.delete(id);
    done.add(id);
  };
  visit(graph.startId!);
  for (const id of graph.nodes.keys())
    if (!done.has(id)) invalid('the node cannot be reached from the start node', id);
}

/** A condition reads the previous email step, so every path from the start to it must pass an email node. */
function checkConditionsFollowEmail(graph: DripGraph): void {
  const mailed = new Map<string, boolean>();
  const order = topologicalOrder(graph);
  const preds = new Map<string, string[]>();
  for (const id of order)
    for (const s of successorsOf(graph, id)) preds.set(s, [...(preds.get(s) ?? []), id]);
  for (const id of order) {
    const p = preds.get(id) ?? [];
    mailed.set(
      id,
      p.length > 0 && p.every((q) => graph.nodes.get(q)!.type === 'email' || mailed.get(q) === true),
    );
    if (graph.nodes.get(id)!.type === 'condition' && !mailed.get(id))
      invalid('a condition must follow an email step on every path to it', id);
  }
}

function topologicalOrder(graph: DripGraph): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string): void => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const s of successorsOf(graph, id)) visit(s);
    out.push(id);
  };
  visit(graph.startId!);
  return out.reverse();
}

function endpoint(v: unknown): string | undefined {
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v ? v : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
