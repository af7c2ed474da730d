/** A group committer for tests that counts the statements it runs that update each table. */
import { TableNode, UpdateQueryNode, type Kysely, type KyselyPlugin } from 'kysely';
import { createGroupCommitter, type GroupCommitter } from '../db/group-commit.ts';
import type { DB } from '../db/types.ts';

/** A committer over `db` whose `updates` maps each table to the number of update statements run on it. */
export function countingCommitter(db: Kysely<DB>): {
  committer: GroupCommitter;
  updates: Map<string, number>;
} {
  const updates = new Map<string, number>();
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      if (UpdateQueryNode.is(node) && node.table && TableNode.is(node.table)) {
        const table = node.table.table.identifier.name;
        updates.set(table, (updates.get(table) ?? 0) + 1);
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  return { committer: createGroupCommitter(db.withPlugin(plugin)), updates };
}
