/** Examples of the scheduled transactional email operations, added to the served document with the others. */
import type { OperationExample } from './openapi-examples.ts';

const AT = '2026-01-31T09:30:00.000Z';

/** A scheduled message as the schedule routes answer it. */
const SCHEDULED = {
  sourceTrackingId: '019c1a2b-3c4d-7e5f-8a9b-0c1d2e3f4a5b',
  state: 'scheduled',
  scheduledAt: '2026-02-01T08:00:00.000Z',
  data: 'Message scheduled',
  createdAt: AT,
  updatedAt: AT,
  sentAt: null,
  cancelledAt: null,
  errorCode: null,
};
/** Schedule, read, reschedule and cancel. */
export const SCHEDULE_EXAMPLES: OperationExample[] = [
  {
    method: 'post',
    path: /\/schedule$/,
    request: {
      data: {
        message: {
          recipients: ['patient@example.org'],
          headers: { subject: 'Appointment reminder', from: 'desk@clinic.example.com' },
          content: { 'text/plain': 'Your appointment is tomorrow at 9:30.' },
        },
        scheduled_at: '2026-02-01T08:00:00Z',
      },
    },
    responses: { '200': SCHEDULED },
  },
  { method: 'get', path: /\/schedule\/\{id\}$/, responses: { '200': SCHEDULED } },
  {
    method: 'patch',
    path: /\/schedule\/\{id\}$/,
    request: { scheduled_at: '2026-02-01T10:00:00Z' },
    responses: { '200': { ...SCHEDULED, scheduledAt: '2026-02-01T10:00:00.000Z' } },
  },
  {
    method: 'post',
    path: /\/schedule\/\{id\}\/cancel$/,
    request: {},
    responses: {
      '200': { ...SCHEDULED, state: 'cancelled', data: 'Message cancelled', cancelledAt: AT },
    },
  },
];
