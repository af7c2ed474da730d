// Runs a TypeScript module in a worker thread through tsx's loader, for a process running from the sources (tests, or
// a start without a build); a built process starts its threads from the compiled modules in dist/ instead.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.tsModule);
