/**
 * The HTTP side of a webhook attempt: one POST with an overall deadline, through keep-alive agents whose connections
 * resolve host names through the URL-safety lookup. It never throws; every way an attempt can end becomes a result
 * (status, latency, the start of the response body, or the error).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import {
  guardedLookup,
  hostOf,
  isRefusedAddress,
  TargetRefusedError,
  type HostLookup,
} from './url-safety.ts';

/** How one POST ended. */
export interface PostResult {
  /** The response status, or null when none arrived. */
  statusCode: number | null;
  latencyMs: number;
  /** The first 500 characters of the response body. */
  excerpt: string | null;
  /** Why no usable response arrived (connection error, timeout, refused address); null when one did. */
  error: string | null;
  /** True when the target address was refused by URL safety (retrying cannot help). */
  refused: boolean;
}

/** Posts bodies to webhook endpoints. */
export interface HttpPoster {
  post(url: string, headers: Record<string, string>, body: string): Promise<PostResult>;
  close(): void;
}

/** How a poster behaves. */
export interface PosterOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  lookup: HostLookup;
  /** Sockets kept per host (about the dispatcher's concurrency). */
  maxSockets: number;
}

const EXCERPT_CHARS = 500;
/** Bytes of a response body read at most; the rest is dropped with the connection. */
const READ_LIMIT = 4 * EXCERPT_CHARS;

/** Creates a poster with its own connection pools. */
export function createPoster(opts: PosterOptions): HttpPoster {
  const agentOptions = {
    keepAlive: true,
    maxSockets: opts.maxSockets,
    maxFreeSockets: opts.maxSockets,
    timeout: 30_000,
  };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };
  const lookup = guardedLookup(opts.lookup, opts.allowPrivate);

  function post(target: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(target);
    const host = hostOf(url);
    if (!opts.allowPrivate && net.isIP(host) && isRefusedAddress(host))
      return Promise.resolve(failed(new TargetRefusedError(host, host), elapsed()));
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<PostResult>((resolve) => {
      let settled = false;
      const finish = (result: PostResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = transport.request(
        url,
        {
          method: 'POST',
          agent: agents[url.protocol as 'http:' | 'https:'],
          lookup: lookup as unknown as net.LookupFunction,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () => {
            const text = Buffer.concat(chunks).toString('utf8');
            finish({
              statusCode: res.statusCode ?? null,
              latencyMs: elapsed(),
              excerpt: text ? text.slice(0, EXCERPT_CHARS) : null,
              error: null,
              refused: false,
            });
          };
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= READ_LIMIT) {
              done();
              res.destroy();
            }
          });
          res.on('end', done);
          res.on('error', (err) => finish(failed(err, elapsed(), res.statusCode)));
        },
      );
      const timer = setTimeout(() => {
        const err = new Error(`timed out after ${opts.timeoutMs} ms`);
        finish(failed(err, elapsed()));
        req.destroy(err);
      }, opts.timeoutMs);
      req.on('error', (err) => finish(failed(err, elapsed())));
      req.end(body);
    });
  }

  return {
    post,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function failed(err: unknown, latencyMs: number, statusCode: number | null = null): PostResult {
  const e = err as NodeJS.ErrnoException;
  const text = e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : (e.message ?? String(err));
  return {
    statusCode,
    latencyMs,
    excerpt: null,
    error: text.slice(0, 500),
    refused: err instanceof TargetRefusedError,
  };
}
