import { describe, expect, it } from 'vitest';
import { classify } from './surfaces.ts';

describe('surface classification', () => {
  it.each([
    ['POST', '/v1/email/messages', { kind: 'api', scope: 'email' }],
    ['POST', '/v1/messages', { kind: 'api', scope: 'email' }],
    ['GET', '/v1/message_receipt?sourceTrackingId=x', { kind: 'api', scope: 'email' }],
    ['POST', '/v1/acme/messages', { kind: 'api', scope: 'email', username: 'acme' }],
    ['GET', '/v1/marketing/subscribers', { kind: 'api', scope: 'marketing' }],
    ['GET', '/v1/marketing/acme/subscribers', { kind: 'api', scope: 'marketing', username: 'acme' }],
    ['GET', '/v1/marketing/no_such_op', { kind: 'api', scope: 'marketing' }],
    ['GET', '/v1/marketing/acme/no_such_op', { kind: 'api', scope: 'marketing' }],
    ['GET', '/v1/marketing/no_such_op/more', { kind: 'api', scope: 'marketing' }],
    ['GET', '/v1/marketing/acme/no_such_op/more', { kind: 'api', scope: 'marketing' }],
    ['GET', '/v1/marketing/subscribers/12/no_such_op', { kind: 'api', scope: 'marketing' }],
    ['GET', '/v1/marketing/ACME/Subscribers', { kind: 'api', scope: 'marketing', username: 'acme' }],
    ['GET', '/v1/marketing/acme/dynamic_lists/1', { kind: 'api', scope: 'marketing', username: 'acme' }],
    ['GET', '/v1/forms/api/forms', { kind: 'api', scope: 'forms' }],
    ['GET', '/forms/api/forms/stats', { kind: 'api', scope: 'forms' }],
    ['GET', '/v1/forms/public/form_data/123', { kind: 'public' }],
    ['GET', '/forms/public/form_data/123', { kind: 'public' }],
    ['POST', '/v1/forms/api/forms/123/submissions', { kind: 'public' }],
    ['GET', '/v1/forms/api/forms/123/submissions', { kind: 'api', scope: 'forms' }],
    ['GET', '/healthz', { kind: 'public' }],
    ['GET', '/v1/acme/status', { kind: 'public' }],
    ['GET', '/v1/email/status', { kind: 'public' }],
    ['GET', '/v1/status', { kind: 'public' }],
    ['POST', '/v1/acme/status', { kind: 'api', scope: 'email', username: 'acme' }],
    ['GET', '/v1/acme/schedule/x', { kind: 'api', scope: 'email', username: 'acme' }],
    ['POST', '/v1/schedule', { kind: 'api', scope: 'email' }],
    ['GET', '/v1/schedule/status', { kind: 'api', scope: 'email' }],
    ['GET', '/v1/dynamic_templates/status', { kind: 'api', scope: 'email' }],
    ['GET', '/metrics', { kind: 'public' }],
  ])('%s %s is %j', (method, url, expected) => {
    expect(classify(method, url)).toEqual(expected);
  });
});

describe('surface words used where a username goes', () => {
  it.each([
    ['POST', '/v1/forms/messages', { kind: 'api', scope: 'email', username: 'forms' }],
    ['GET', '/v1/FORMS/webhook_endpoints', { kind: 'api', scope: 'email', username: 'forms' }],
    ['GET', '/v1/forms/captured_messages', { kind: 'api', scope: 'email', username: 'forms' }],
  ])('%s %s is the email surface of an account named by the path, %j', (method, url, expected) => {
    expect(classify(method, url)).toEqual(expected);
  });
});
