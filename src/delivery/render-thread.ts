/**
 * The render thread's module (see render-pool.ts): it renders and signs each copy it is sent and sends back the raw
 * message or what went wrong. It holds nothing between copies but the parsed packages.
 */
import { parentPort } from 'node:worker_threads';
import { renderSigned, type RenderJob } from './render.ts';

/** A copy to render, numbered by the pool. */
export interface RenderRequest {
  id: number;
  job: RenderJob;
}

/** The rendered copy, or the error that stopped it. */
export type RenderReply = { id: number; raw: Uint8Array } | { id: number; error: string };

parentPort?.on('message', ({ id, job }: RenderRequest) => {
  renderSigned(job).then(
    (raw) => parentPort!.postMessage({ id, raw } satisfies RenderReply),
    (err: unknown) =>
      parentPort!.postMessage({
        id,
        error: err instanceof Error ? err.message : String(err),
      } satisfies RenderReply),
  );
});
