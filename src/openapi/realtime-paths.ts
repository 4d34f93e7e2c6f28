/**
 * `/realtime` in the OpenAPI document (contract §11): the event stream (GET, no credentials)
 * and the subscription call (POST, the data API's credentials). The events themselves are
 * described in the operation's text: OpenAPI has no schema language for server-sent events.
 */
import { DATA_SECURITY } from './data-paths.js';
import { BODY, DATA_CREDENTIALS, errorResponses } from './error-responses.js';

const json = (schema: object) => ({ 'application/json': { schema } });

/** The realtime paths, keyed by path (every project has them). */
export function realtimePaths(): Record<string, object> {
  return {
    '/realtime': {
      get: {
        operationId: 'openRealtimeStream',
        summary: 'Open the event stream (server-sent events)',
        description:
          'No credentials: the first event is `connect` with data {"client_id": "..."}; ' +
          'then POST /realtime binds credentials and topics to that client. ' +
          'Events: `id` (opaque, increasing), `event` (the topic as subscribed), ' +
          'data {"action": "create" | "update" | "delete", "record": row}; ' +
          'also `auth_expired` and `reset` (data {}). A comment line (": ping") ' +
          'at least every 30 seconds. Last-Event-ID is taken as since.',
        tags: ['realtime'],
        security: [],
        parameters: [
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: 'Resume after this event id.',
          },
        ],
        responses: {
          '200': { description: 'The event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errorResponses([]),
        },
      },
      post: {
        operationId: 'subscribeRealtime',
        summary: "Replace a stream's subscriptions and bind the caller's identity to it",
        description:
          'Topics: "{table}", "{table}/{row_id}", "{table}?filter=<url-encoded ' +
          'expression>". [] removes every subscription.',
        tags: ['realtime'],
        security: DATA_SECURITY,
        requestBody: {
          required: true,
          content: json({
            type: 'object',
            additionalProperties: false,
            required: ['client_id', 'subscriptions'],
            properties: {
              client_id: { type: 'string', minLength: 1, description: "The client_id of the stream's connect event." },
              subscriptions: { type: 'array', items: { type: 'string' } },
              since: {
                type: ['string', 'null'],
                description: 'The id of the last event received: kept events after it are sent first.',
              },
            },
          }),
        },
        responses: {
          '200': {
            description: 'The subscriptions now in force.',
            content: json({
              type: 'object',
              additionalProperties: false,
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['client_id', 'subscriptions'],
                  properties: {
                    client_id: { type: 'string' },
                    subscriptions: { type: 'array', items: { type: 'string' } },
                  },
                },
              },
            }),
          },
          ...errorResponses([
            ...DATA_CREDENTIALS,
            'REALTIME_CLIENT_NOT_FOUND',
            'TABLE_NOT_FOUND',
            'VALIDATION_FILTER',
            'VALIDATION_FAILED',
            'FORBIDDEN',
            ...BODY,
          ]),
        },
      },
    },
  };
}
