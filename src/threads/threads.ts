/**
 * Starting Sealpost's worker threads (the render threads, delivery/render-pool.ts; the checkpoint thread,
 * db/checkpoints.ts). Each thread's module is an entry of the build (bin/build.js), started from beside the running
 * build's modules in dist/; a process running from the sources starts the TypeScript module through tsx's loader
 * (bin/ts-worker.js).
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The thread modules, by their path under src/ without extension; the build names each entry by its file name. */
export type ThreadModule = 'delivery/render-thread' | 'db/checkpoint-thread';

/** Starts a thread running `module`, with `workerData` as its data. */
export function startThread(module: ThreadModule, options: WorkerOptions = {}): Worker {
  const here = fileURLToPath(import.meta.url);
  const name = `sealpost-${path.basename(module)}`;
  if (here.endsWith('.ts')) {
    const src = path.dirname(path.dirname(here));
    const tsModule = pathToFileURL(path.join(src, `${module}.ts`)).href;
    const boot = path.resolve(src, '../bin/ts-worker.js');
    return new Worker(boot, { name, ...options, workerData: { tsModule, data: options.workerData } });
  }
  // A built module sits in dist/ (the entry) or dist/chunks/.
  const dir = path.dirname(here);
  const dist = path.basename(dir) === 'chunks' ? path.dirname(dir) : dir;
  return new Worker(path.join(dist, `${path.basename(module)}.js`), {
    name,
    ...options,
    workerData: { data: options.workerData },
  });
}
