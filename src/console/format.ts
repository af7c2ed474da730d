/** Small display helpers shared by console pages: times, durations, form fields read as one string or a list. */
import { AppError } from '../errors/app-error.ts';
import type { AppContext } from '../context.ts';
import type { ConsoleContext, FormFields } from './page.ts';

/** A time as "2026-11-25 14:03 UTC", or an em dash for none. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const d = new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
  return Number.isNaN(d.getTime()) ? '—' : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A duration in words: "42 s", "5 min", "3 h", "2 days". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/** A form field as one trimmed string ('' when absent). */
export function field<F extends FormFields>(c: ConsoleContext<F>, name: keyof F & string): string {
  const v: FormFields[string] = c.form[name];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
}

/** A form field that may repeat (checkboxes), as a list. */
export function fields<F extends FormFields>(c: ConsoleContext<F>, name: keyof F & string): string[] {
  const v: FormFields[string] = c.form[name];
  return v === undefined
    ? []
    : [v]
        .flat()
        .map((x) => x.trim())
        .filter(Boolean);
}

/** The highest page number a console list goes to (the API's limit). */
const MAX_PAGE = 1_000_000;

/** A `page` query value as a page number (1 when absent); anything but a whole number 1 to 1,000,000 is refused. */
export function pageNumber(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  const n = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= MAX_PAGE))
    throw new AppError('request.invalid', `the page number must be a whole number from 1 to ${MAX_PAGE}`);
  return n;
}

/**
 * How the console words "delivered". With the capture transport nothing leaves the server, so a message the stored
 * status calls delivered reads "captured, not sent" (the stored status and the API keep "delivered").
 */
export function deliveredLabel(ctx: AppContext): { word: string; label: string } {
  return ctx.config.transport === 'capture'
    ? { word: 'captured, not sent', label: 'Captured, not sent' }
    : { word: 'delivered', label: 'Delivered' };
}

/** A stored status (or receipt text) as the console shows it: "delivered" in it reads "captured, not sent" in capture mode. */
export function statusWord(ctx: AppContext, status: string): string {
  if (ctx.config.transport !== 'capture') return status;
  if (status === 'delivered') return 'captured, not sent';
  return status === 'delivered via secure portal' ? 'captured, not sent (secure portal notice)' : status;
}
