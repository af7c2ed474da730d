/**
 * A drip as the console draws it: the drip, its parsed graph, the subject of each email step's mailing, and per node the
 * enrollments there now (active or parked), the ones that completed or stopped there, and the emails the step made.
 */
import type { AppContext } from '../../context.ts';
import { mailingIds, parseGraph, type DripGraph } from './drips.graph.ts';
import { accountMailingIds, type DripRow } from './drips.repository.ts';
import { requireDrip } from './drips.service.ts';
import {
  emailsPerNode,
  enrollmentsPerNode,
  mailingSubjects,
  stopsByReason,
} from './drips.counts.repository.ts';

/** The figures of one node. */
export interface NodeCounts {
  /** Enrollments whose next step is this node (running or parked while the drip is paused). */
  enrolled: number;
  completed: number;
  stopped: number;
  /** Emails made by this step (email nodes). */
  emails: number;
}

/** A drip with its graph and figures per node. */
export interface DripDiagram {
  drip: DripRow;
  graph: DripGraph;
  counts: Map<string, NodeCounts>;
  /** Subjects of the mailings email nodes name, by the id the node gives. */
  subjects: Map<string, string>;
  /** Stopped enrollments by the reason they stopped. */
  stops: { reason: string; n: number }[];
}

/** The diagram of a drip of the account. */
export async function dripDiagram(ctx: AppContext, customerId: number, rawId: string): Promise<DripDiagram> {
  const db = ctx.database.reader;
  const drip = await requireDrip(db, customerId, rawId);
  const graph = parseGraph(drip.nodes);
  const [enrollments, emails, subjects, stops] = await Promise.all([
    enrollmentsPerNode(db, drip.id),
    emailsPerNode(db, drip.id),
    subjectsByRef(db, customerId, [...mailingIds(graph)]),
    stopsByReason(db, drip.id),
  ]);
  const counts = new Map<string, NodeCounts>();
  for (const id of graph.nodes.keys())
    counts.set(id, { enrolled: 0, completed: 0, stopped: 0, emails: emails.get(id) ?? 0 });
  for (const e of enrollments) {
    const c = counts.get(e.node_id);
    if (!c) continue;
    if (e.state === 'completed') c.completed += e.n;
    else if (e.state === 'stopped') c.stopped += e.n;
    else c.enrolled += e.n;
  }
  return { drip, graph, counts, subjects, stops };
}

/** The subjects of the account's mailings named by email nodes, keyed by the id as the node gives it. */
async function subjectsByRef(
  db: AppContext['database']['reader'],
  customerId: number,
  refs: string[],
): Promise<Map<string, string>> {
  const keys = await accountMailingIds(db, customerId, refs);
  const subjects = await mailingSubjects(db, customerId, [...keys.values()]);
  const byRef = new Map<string, string>();
  for (const [ref, key] of keys) {
    const subject = subjects.get(key);
    if (subject !== undefined) byRef.set(ref, subject);
  }
  return byRef;
}
