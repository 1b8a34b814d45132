import { failure, success } from '../../../../platform/http/envelope.js';
import { methodNotAllowedExample, type ResponseExamples } from '../../../../platform/http/response-examples.js';

/** Example answers of the health routes. */

const shuttingDown = { summary: 'the instance is shutting down', value: failure('SHUTTING_DOWN', 'this instance is shutting down; retry the request') };

export const healthzExamples: ResponseExamples = {
  200: { alive: { summary: 'the process answers', value: success({ status: 'ok' }) } },
  405: methodNotAllowedExample('GET, HEAD', 'POST'),
  503: { SHUTTING_DOWN: shuttingDown },
};

export const readyzExamples: ResponseExamples = {
  405: methodNotAllowedExample('GET, HEAD', 'POST'),
  200: { ready: { summary: 'every backend answers', value: success({ status: 'ready', backends: { database: 'ok', event_log: 'ok', redis: 'ok' } }) } },
  503: {
    NOT_READY: {
      summary: 'a backend is unavailable',
      value: failure('NOT_READY', 'a backend is unavailable', { backends: { database: 'ok', event_log: 'unavailable: Connection timeout', redis: 'ok' } }),
    },
    SHUTTING_DOWN: shuttingDown,
  },
};
