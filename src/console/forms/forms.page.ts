/**
 * The Forms pages: the list of the account's forms, creating one, and the builder. Every change goes through the
 * same forms service as `POST/PUT /api/forms`, so a definition the API refuses is refused here too (shown beside the
 * editor, nothing saved), and is written to the audit trail.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors/app-error.ts';
import { auditForm } from './form-audit.ts';
import { parseDefinition } from '../../forms/definitions/definition.ts';
import { requireList } from '../../marketing/lists/lists.service.ts';
import { changeForm, createForm, formOf, listFormsOf } from '../../forms/definitions/forms.service.ts';
import type { Form as StoredForm } from '../../forms/definitions/forms.schemas.ts';
import { parseMailbox } from '../../mail/addresses.ts';
import { builderError } from './builder-errors.ts';
import { html } from '../../http/html.ts';
import { csrfField } from '../layout.ts';
import { consoleAction, consolePage, type ConsoleContext } from '../page.ts';
import { Form, Text } from '../action.schemas.ts';
import { applyStep, BuilderForm, readState, readStep, type BuilderState } from './builder-state.ts';
import { builderBody, formsAssets } from './builder.view.ts';
import { previewRoutes } from './preview.routes.ts';
import { responsesPages } from './responses.page.ts';
import { sharePages } from './share.page.ts';
import { lookPages } from './look.page.ts';

function stateOf(form: StoredForm): BuilderState {
  const body = (form.form_json as { body?: BuilderState['components'] }).body ?? [];
  return {
    title: form.title,
    description: form.description ?? '',
    recipient: form.recipient,
    signable: form.signable,
    affirmation: form.signature_confirmation_label ?? '',
    components: body,
  };
}

/** The longest affirmed sentence the API takes. */
const AFFIRMATION_MAX = 1_000;

/** The settings' problem in plain words, or undefined: each notified address must be one, a signature needs its field. */
function settingsProblem(state: BuilderState): string | undefined {
  const bad = state.recipient
    .split(',')
    .map((s) => s.trim())
    .find((s) => s && !parseMailbox(s));
  if (bad !== undefined) return `Notify of each response: \u201c${bad}\u201d is not an email address`;
  if (state.affirmation.length > AFFIRMATION_MAX)
    return `The sentence the signer affirms must be at most ${AFFIRMATION_MAX} characters (it has ${state.affirmation.length})`;
  if (state.signable && !state.components.some((c) => c.type === 'Signature'))
    return 'Requires a signature: add a Signature component, or untick it';
  return undefined;
}

async function listPage(c: ConsoleContext) {
  const search = c.query.search?.trim() || undefined;
  const { results } = await listFormsOf(c.ctx, c.account.customer_id, { search, items: 200 });
  const rows = results.filter((f) => !f.deleted);
  return html`${formsAssets()}
    <form method="get" action="/console/forms" class="filters" role="search">
      <label for="search">Search by title</label><input type="text" id="search" name="search" value="${search ?? ''}" />
      <button type="submit">Search</button>
    </form>
    ${
      c.can('edit_content')
        ? html`<form method="post" action="/console/forms/new" class="card">
            ${csrfField(c.csrfToken)}
            <label for="new-title">New form title</label>
            <input type="text" id="new-title" name="title" required maxlength="200" />
            <button type="submit" class="primary">Create form</button>
          </form>`
        : ''
    }
    ${
      rows.length === 0
        ? html`<p class="muted">No forms yet.</p>`
        : html`<div class="table-wrap">
            <table class="stack">
              <caption class="muted">
                ${rows.length} form${rows.length === 1 ? '' : 's'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Status</th>
                  <th scope="col">Responses</th>
                  <th scope="col">Changed</th>
                  <th scope="col"><span class="visually-hidden">Pages</span></th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (f) =>
                    html`<tr>
                      <td data-label="Title"><a href="/console/forms/${f.id}">${f.title}</a></td>
                      <td data-label="Status">${f.archived ? 'archived' : f.active ? 'published' : 'draft'}</td>
                      <td data-label="Responses">${f.submission_count}</td>
                      <td data-label="Changed">${f.updated_at.slice(0, 16).replace('T', ' ')}</td>
                      <td>
                        ${c.can('read_protected') ? html`<a href="/console/forms/${f.id}/responses">Responses</a> · ` : ''}
                        <a href="/console/forms/${f.id}/share">Share</a>
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }`;
}

async function saveBuilder(c: ConsoleContext) {
  const id = c.params.id!;
  const saved = await formOf(c.ctx, c.account.customer_id, id);
  let state = readState(c.form);
  const step = readStep(c.form);
  const view = (message?: string, about = state.components) => {
    const error = message === undefined ? undefined : builderError(message, about);
    return {
      title: `Build: ${state.title || saved.title}`,
      status: error ? 422 : 200,
      body: builderBody({
        formId: id,
        state,
        csrfToken: c.csrfToken,
        canEdit: true,
        canReadResponses: c.can('read_protected'),
        active: saved.active,
        error: error?.text,
        errorIndex: error?.index,
        unsaved: true,
      }),
    };
  };
  if (state.error) return view(state.error);
  if (step) {
    const next = applyStep(state.components, step);
    if (next.error) return view(next.error);
    if (step.op === 'json') {
      try {
        parseDefinition({ body: next.components });
      } catch (err) {
        if (err instanceof AppError) return view(err.message, next.components);
        throw err;
      }
    }
    // A form's first Signature records the signer's evidence unless the editor turns that off.
    const firstSignature =
      step.op === 'add' && step.type === 'Signature' && !state.components.some((s) => s.type === 'Signature');
    state = { ...state, components: next.components, signable: state.signable || firstSignature };
    return view();
  }
  if (!state.title) return view('the form needs a title');
  const problem = settingsProblem(state);
  if (problem) return view(problem);
  try {
    await changeForm(
      c.ctx,
      c.account.customer_id,
      id,
      {
        title: state.title,
        description: state.description,
        recipient: state.recipient,
        signable: state.signable,
        signature_confirmation_label: state.affirmation,
        form_json: { ...(saved.form_json as object), body: state.components },
      },
      requireList,
    );
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return view(err.message);
    throw err;
  }
  await auditForm(c, 'form.update', `form:${id}`, { components: state.components.length });
  return { redirect: `/console/forms/${id}`, flash: 'Form saved' };
}

/** Registers the forms list, creation, the builder and its preview. */
export function formsPages(app: FastifyInstance, ctx: AppContext): void {
  consolePage(app, ctx, { path: '/console/forms', permission: 'read', title: 'Forms', render: listPage });
  consoleAction(app, ctx, {
    path: '/console/forms/new',
    permission: 'edit_content',
    body: Form({ title: Text() }),
    back: () => '/console/forms',
    handle: async (c) => {
      const title = (c.form.title ?? '').trim();
      if (!title) throw new AppError('request.unprocessable', 'the form needs a title');
      const { id } = await createForm(
        c.ctx,
        c.account.customer_id,
        { title, form_json: { body: [] }, active: false },
        requireList,
      );
      await auditForm(c, 'form.create', `form:${id}`, { title });
      return {
        redirect: `/console/forms/${id}`,
        flash: 'Form created: add its components, save, then publish it.',
      };
    },
  });
  consolePage(app, ctx, {
    path: '/console/forms/:id',
    permission: 'read',
    title: 'Build',
    render: async (c) => {
      const form = await formOf(c.ctx, c.account.customer_id, c.params.id!);
      return {
        title: `Build: ${form.title}`,
        body: builderBody({
          formId: form.id,
          state: stateOf(form),
          csrfToken: c.csrfToken,
          canEdit: c.can('edit_content'),
          canReadResponses: c.can('read_protected'),
          active: form.active,
        }),
      };
    },
  });
  consoleAction(app, ctx, {
    path: '/console/forms/:id',
    permission: 'edit_content',
    body: BuilderForm,
    handle: saveBuilder,
  });
  for (const [path, active] of [
    ['publish', true],
    ['unpublish', false],
  ] as const)
    consoleAction(app, ctx, {
      path: `/console/forms/:id/${path}`,
      permission: 'edit_content',
      body: Form({ back: Text() }),
      handle: async (c) => {
        const id = c.params.id!;
        await changeForm(c.ctx, c.account.customer_id, id, { active }, requireList);
        await auditForm(c, `form.${path}`, `form:${id}`);
        return {
          redirect: c.form.back === 'share' ? `/console/forms/${id}/share` : `/console/forms/${id}`,
          flash: active ? 'Form published' : 'Form unpublished',
        };
      },
    });
  previewRoutes(app, ctx);
  responsesPages(app, ctx);
  sharePages(app, ctx);
  lookPages(app, ctx);
}
