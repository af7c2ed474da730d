/** AppError: the one error type services throw. It names a catalogue code and knows nothing of HTTP or SMTP. */
import { CATALOGUE, type ErrorCode } from './catalogue.ts';

/** A field-level problem attached to an error (validation failures). */
export interface ErrorDetail {
  field?: string;
  message: string;
}

/** An error with a catalogue code, a human message and optional field details. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  /** Extra top-level fields for the response body (for example the asked-for sourceTrackingId). */
  readonly extra: Record<string, unknown>;
  /** Response headers that go with this error (for example Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: {
      details?: ErrorDetail[];
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    super(message ?? CATALOGUE[code].title, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = opts.details ?? [];
    this.extra = opts.extra ?? {};
    this.headers = opts.headers ?? {};
  }

  /** The HTTP status of this error's code. */
  get status(): number {
    return CATALOGUE[this.code].status;
  }

  /** The SMTP reply (code and enhanced status code) followed by the message. */
  get smtpReply(): string {
    return `${CATALOGUE[this.code].smtp} ${this.message}`;
  }
}
