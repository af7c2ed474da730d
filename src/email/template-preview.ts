/** Renders a template body with sample values for a preview, or says where its syntax is wrong (line and column). */
import { AppError } from '../errors/app-error.ts';
import { parseTemplateValues } from './templates.service.ts';
import { handlebars } from '../on-first-use.ts';

/** Where a template fails, and why. */
export interface TemplateProblem {
  message: string;
  line: number | null;
  column: number | null;
}

type Located = Error & {
  hash?: { loc?: { last_line: number; last_column: number } };
  lineNumber?: number;
  column?: number;
};

/** Where the parser stopped: the parser reports a location only to its error hook, so the hook is set for this call. */
function locate(body: string): TemplateProblem | null {
  const Handlebars = handlebars();
  const parser = (Handlebars as unknown as { Parser: { parseError(str: string, hash: unknown): never } })
    .Parser;
  const own = Object.prototype.hasOwnProperty.call(parser, 'parseError') ? parser.parseError : undefined;
  parser.parseError = (str: string, hash: unknown) => {
    throw Object.assign(new Error(str), { hash });
  };
  try {
    Handlebars.precompile(body);
    return null;
  } catch (err) {
    const e = err as Located;
    const lines = e.message.split('\n');
    const first = lines[0]!;
    const got = /got '([^']+)'$/.exec(lines.at(-1) ?? '');
    if (e.hash?.loc)
      return {
        message: got ? `the template does not read as Handlebars here (unexpected ${got[1]})` : first,
        line: e.hash.loc.last_line,
        column: e.hash.loc.last_column + 1,
      };
    if (e.lineNumber !== undefined)
      return { message: first.replace(/ - \d+:\d+$/, ''), line: e.lineNumber, column: (e.column ?? 0) + 1 };
    return { message: first, line: null, column: null };
  } finally {
    if (own) parser.parseError = own;
    else delete (parser as { parseError?: unknown }).parseError;
  }
}

/** The HTML a body renders to with the sample values (a JSON object), or the problem that stops it. */
export function previewTemplate(
  body: string,
  valuesText: string,
): { html: string } | { problem: TemplateProblem } {
  const problem = locate(body);
  if (problem) return { problem };
  let values: Record<string, unknown>;
  try {
    values = parseTemplateValues(valuesText.trim() ? valuesText : '{}');
  } catch (err) {
    return {
      problem: {
        message: (err as AppError).message.replace('data.template_values', 'the sample values'),
        line: null,
        column: null,
      },
    };
  }
  try {
    return { html: handlebars().compile(body, { strict: false })(values) };
  } catch (err) {
    return { problem: { message: (err as Error).message.split('\n')[0]!, line: null, column: null } };
  }
}
