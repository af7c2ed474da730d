/**
 * A drip as the console draws it: the drip, its parsed graph, the subject of each email step's mailing, and per node the
 * enrollments there now (active or parked), the ones that completed or stopped there, and the emails the step made.
 */
import type { AppContext } from '../../context.ts';
import { mailingIds, parseGraph, type DripGraph } from './drips.graph.ts';
import type { DripRow } from './drips.repository.ts';
import { requireDrip } from './drips.service.ts';
import { emailsPerNode, enrollmentsPerNode, mailingSubjects } from './drips.counts.repository.ts';

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
  /** Subjects of the mailings email nodes name, by mailing id. */
  subjects: Map<number, string>;
}

/** The diagram of a drip of the account. */
export async function dripDiagram(ctx: AppContext, customerId: number, rawId: string): Promise<DripDiagram> {
  const db = ctx.database.reader;
  const drip = await requireDrip(db, customerId, rawId);
  const graph = parseGraph(drip.nodes);
  const [enrollments, emails, subjects] = await Promise.all([
    enrollmentsPerNode(db, drip.id),
    emailsPerNode(db, drip.id),
    mailingSubjects(db, customerId, mailingIds(graph)),
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
  return { drip, graph, counts, subjects };
}
