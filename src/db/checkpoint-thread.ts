/**
 * The checkpoint thread's module (see checkpoints.ts): it holds a connection of its own to the database file and, each
 * time it is asked, copies what the write-ahead log holds into the database file (a passive checkpoint: it waits for
 * no reader or writer and copies what it can). It answers with SQLite's counts of the log's frames and of those copied.
 * Asked to close, it closes its connection and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { sqliteDriver } from './sqlite-driver.ts';

/** What the thread answers after each checkpoint. */
export type CheckpointReply = { frames: number; copied: number } | { error: string };

const { file } = (workerData as { data: { file: string } }).data;
const Driver = sqliteDriver();
const db = new Driver(file);
// SQLite's default, said aloud: the log is synced before it is copied and the database file after.
db.pragma('synchronous = FULL');

/** What the thread is asked: a checkpoint, or to close its connection and end. */
export type CheckpointRequest = 'checkpoint' | 'close';

parentPort?.on('message', (request: CheckpointRequest) => {
  if (request === 'close') {
    db.close();
    parentPort!.close();
    return;
  }
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as {
      busy: number;
      log: number;
      checkpointed: number;
    }[];
    parentPort!.postMessage({
      frames: row?.log ?? 0,
      copied: row?.checkpointed ?? 0,
    } satisfies CheckpointReply);
  } catch (err) {
    parentPort!.postMessage({
      error: err instanceof Error ? err.message : String(err),
    } satisfies CheckpointReply);
  }
});
