/**
 * Completes the OpenAPI document fastify-swagger builds from the route schemas with what the schemas cannot say:
 * an operationId for every operation, every path parameter of the path template (the account name of the
 * `/v1/<username>/…` and `/v1/marketing/<username>/…` routes lives in the prefix, not in each route's params), the
 * access rule of every operation taken from the same classification authentication uses (public routes say
 * `security: []`), the multipart request bodies (read by the handler, so absent from the validation schema),
 * optional defaults and bodies, and the links to the prose documentation.
 */
import { classify } from '../http/surfaces.ts';
import { ErrorResponse } from '../mail/error-body.ts';
import { EXAMPLES, RECORDED_EXAMPLES } from './openapi-examples.ts';

type Schema = Record<string, unknown>;
interface Parameter {
  in?: string;
  name?: string;
  required?: boolean;
  schema?: { default?: unknown };
  description?: string;
}
interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
  requestBody?: Schema;
  responses?: Schema;
}
interface Document {
  info?: Schema;
  paths?: Record<string, Record<string, Operation | undefined>>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const API_KEY: Record<string, string[]>[] = [{ bearer: [] }, { token: [] }];

/** What a path parameter named only in a prefix means. */
const PREFIX_PARAMETERS: Record<string, string> = {
  api_username: 'The username of the account the API key belongs to',
  username: 'The username of the account the API key belongs to',
};

/** The multipart body of a template upload: `data[name]` and `data[body]` (a file part or a text field). */
function templateUpload(required: string[]): Schema {
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required,
          properties: {
            'data[name]': { type: 'string', description: 'The template name, unique in the account' },
            'data[body]': {
              type: 'string',
              format: 'binary',
              description: 'The Handlebars template: a file part (any content type) or a text field',
            },
          },
        },
        encoding: {
          'data[body]': { contentType: 'text/x-handlebars-template, text/plain, application/octet-stream' },
        },
        example: { 'data[name]': 'welcome', 'data[body]': '<p>Hello {{first_name}}</p>' },
      },
    },
  };
}

/** Request bodies the handlers read themselves, by method and the end of the path. */
const MULTIPART_BODIES: { method: string; path: RegExp; body: Schema }[] = [
  { method: 'post', path: /\/dynamic_templates$/, body: templateUpload(['data[name]', 'data[body]']) },
  { method: 'patch', path: /\/dynamic_templates\/\{id\}$/, body: templateUpload([]) },
];

/** Page forms posted without a body too: an unsubscribe (one-click clients may send none), the confirm button. */
const OPTIONAL_FORMS = /^\/(u|confirm)\/\{token\}$/;

const htmlPage = (description: string): Schema => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

/**
 * Client errors the handlers of pages and plain-text routes answer, which their schemas do not list (for every method of
 * the path unless `method` names one).
 */
const EXTRA_RESPONSES: { path: RegExp; method?: string; status: string; response: Schema }[] = [
  {
    path: /^\/f\/\{id\}(\/thanks)?$/,
    status: '404',
    response: htmlPage('No such form, or it is not published'),
  },
  {
    path: /^\/s\/\{token\}(\/attachments\/\{index\})?$/,
    status: '404',
    response: htmlPage('The link is unknown, expired or used up (an explanatory page)'),
  },
  { path: /^\/u\/\{token\}$/, status: '404', response: htmlPage('The unsubscribe link is unknown') },
  { path: /^\/v\/\{token\}$/, status: '404', response: htmlPage('The view-in-browser link is unknown') },
  {
    path: /^\/img\/\{file\}$/,
    status: '404',
    response: {
      description: 'No image at this address',
      content: { 'text/plain': { schema: { type: 'string' } } },
    },
  },
  {
    path: /^\/confirm\/\{token\}$/,
    status: '404',
    response: htmlPage('The confirmation link is unknown, expired or already used (an explanatory page)'),
  },
  {
    path: /^\/p\/\{token\}$/,
    status: '404',
    response: htmlPage('The preference link is not valid (an explanatory page)'),
  },
  {
    path: /^\/p\/\{token\}$/,
    method: 'post',
    status: '403',
    response: htmlPage('The form does not carry the key of this preference link, so nothing is saved'),
  },
  {
    path: /^\/p\/\{token\}$/,
    method: 'post',
    status: '400',
    response: htmlPage(
      'A field is repeated or too long: nothing is saved, and the page is shown again with a notice',
    ),
  },
  {
    path: /^\/u\/\{token\}$/,
    method: 'post',
    status: '400',
    response: htmlPage(
      'A field is repeated or too long: nothing changes, and the confirm page is shown again with a notice',
    ),
  },
  {
    path: /^\/metrics$/,
    status: '401',
    response: {
      description: 'SEALPOST_METRICS_TOKEN is set and the request does not bear it',
      content: json(),
    },
  },
];

function json(): Schema {
  return { 'application/json': { schema: ErrorResponse } };
}

/** What every operation behind an API key may answer. */
const UNAUTHORIZED: Schema = { description: 'The API key is missing, wrong or revoked', content: json() };

/** The prose documentation the document's description links. */
export const PROSE_DOCS: [string, string][] = [
  ['email.md', 'Transactional email: sending, templates, receipts, tracking'],
  ['smtp.md', 'SMTP submission'],
  ['webhooks.md', 'Webhook endpoints, events and signatures'],
  ['forms.md', 'Forms, submissions and exports'],
  ['marketing.md', 'Marketing: lists, subscribers, campaigns, analytics'],
  ['drips.md', 'Drip campaigns'],
  ['errors.md', 'Error body format and every error code'],
  ['configuration.md', 'Every configuration key'],
  ['operations.md', 'Running Sealpost: roles, health, metrics, backups'],
  ['routes.md', 'Every route and who may call it'],
  ['console.md', 'The console: every page, role and confirmation'],
  ['deploy.md', 'Deploying: containers, systemd, a proxy in front'],
  ['performance.md', 'Speed devices and their measured gains'],
  ['decisions.md', 'Decisions the interface left open'],
];

/** `get /v1/marketing/{username}/subscribers/{id}` → `getV1MarketingUsernameSubscribersById`. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((seg) => {
      const param = /^\{(.+)\}$/.exec(seg);
      const pascal = (param ? param[1]! : seg)
        .split(/[^A-Za-z0-9]+/)
        .filter(Boolean)
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('');
      return param ? `By${pascal}` : pascal;
    });
  return method + words.join('');
}

/** Completes `doc` in place and returns it. */
export function completeDocument<T>(input: T, docsBase: string): T {
  const doc = input as Document;
  doc.info = {
    ...doc.info,
    description: `${String(doc.info?.description ?? '')}\n\nProse documentation:\n\n${PROSE_DOCS.map(
      ([file, what]) => `- [${file}](${docsBase}/${file}): ${what}`,
    ).join('\n')}`,
    license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  };
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const [method, op] of Object.entries(item)) {
      if (!op || !METHODS.has(method)) continue;
      let id = op.operationId ?? operationIdOf(method, path);
      while (ids.has(id)) id += '_';
      ids.add(id);
      op.operationId = id;
      declarePathParameters(op, path);
      optionalDefaults(op);
      const publicRoute = classify(method.toUpperCase(), path).kind === 'public';
      op.security = publicRoute ? [] : (op.security ?? API_KEY);
      addClientErrors(op, method, path, publicRoute);
      const body = MULTIPART_BODIES.find((b) => b.method === method && b.path.test(path));
      if (body && !op.requestBody) op.requestBody = body.body;
      if (op.requestBody && method === 'post' && OPTIONAL_FORMS.test(path)) op.requestBody.required = false;
      addExamples(op, method, path);
    }
  return input;
}

/** An operation's path without the prefix it is served under: `/v1/marketing/{username}/lists` → `/lists`. */
const routeOf = (path: string) =>
  path
    .replace(/^\/v1\/(email|\{api_username\}|marketing\/\{username\}|marketing)(?=\/)/, '')
    .replace(/^\/v1(?=\/(?!forms\/))/, '');

/** Puts the example of an operation, if there is one, beside its JSON request and response schemas. */
function addExamples(op: Operation, method: string, path: string): void {
  const route = routeOf(path);
  const example =
    EXAMPLES.find((e) => e.method === method && e.path.test(path)) ??
    RECORDED_EXAMPLES.find((e) => e.method === method && e.route === route);
  if (!example) return;
  const jsonOf = (holder: unknown) =>
    (holder as { content?: Record<string, Schema> } | undefined)?.content?.['application/json'];
  const request = jsonOf(op.requestBody);
  if (example.request !== undefined && request) request.example = example.request;
  for (const [status, value] of Object.entries(example.responses ?? {})) {
    const response = jsonOf(op.responses?.[status]);
    if (response) response.example = value;
  }
}

/** Lists the client errors an operation answers beyond its schema: 401 behind a key, and those of EXTRA_RESPONSES. */
function addClientErrors(op: Operation, method: string, path: string, publicRoute: boolean): void {
  const responses = (op.responses ??= {});
  for (const extra of EXTRA_RESPONSES)
    if (extra.path.test(path) && (extra.method ?? method) === method)
      responses[extra.status] ??= extra.response;
  if (!publicRoute) responses['401'] ??= UNAUTHORIZED;
}

/** Declares each `{name}` of the path template that the operation's parameters leave out. */
function declarePathParameters(op: Operation, path: string): void {
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (op.parameters?.some((p) => p.in === 'path' && p.name === name)) continue;
    (op.parameters ??= []).unshift({
      in: 'path',
      name,
      required: true,
      schema: { type: 'string' } as Parameter['schema'],
      description: PREFIX_PARAMETERS[name!] ?? `The ${name}`,
    });
  }
}

/**
 * Query parameters that have a default are optional to callers (the default fills them in before validation), though
 * their schemas list them as required so handlers see a value: the document says what callers must send.
 */
function optionalDefaults(op: Operation): void {
  for (const p of op.parameters ?? [])
    if (p.in === 'query' && p.required && p.schema?.default !== undefined) p.required = false;
}
