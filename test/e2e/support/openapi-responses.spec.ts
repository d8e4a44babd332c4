import { checkResponse, describeServer } from './openapi-responses';

/** The response checker of the e2e clients fails on what the document does not say, and only there. */
describe('checkResponse', () => {
  const base = 'http://openapi-responses.test';
  const json = 'application/json; charset=utf-8';
  beforeAll(() => {
    describeServer(base, {
      paths: {
        '/v1/things/{id}': {
          get: {
            responses: {
              '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
              '404': { $ref: '#/components/responses/Missing' },
            },
          },
        },
        '/v1/things/count': { get: { responses: { '200': { content: { 'text/plain': { schema: { type: 'string' } } } } } } },
      },
      components: {
        schemas: {
          Thing: {
            type: 'object',
            properties: { id: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
            required: ['id'],
            additionalProperties: false,
          },
          ErrorResponse: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] },
        },
        responses: { Missing: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } } },
      },
    });
  });

  it('passes what the document declares', () => {
    expect(() => checkResponse(base, 'GET', '/v1/things/7?x=1', 200, json, { id: 7, at: '2026-01-01T00:00:00.000Z' })).not.toThrow();
    expect(() => checkResponse(base, 'GET', '/v1/things/7', 404, json, { error: 'no' })).not.toThrow();
    expect(() => checkResponse(base, 'GET', '/v1/things/count', 200, 'text/plain', '3')).not.toThrow();
  });

  it('fails a status the operation does not declare, a body that breaks its schema, another media type', () => {
    expect(() => checkResponse(base, 'GET', '/v1/things/7', 409, json, { error: 'x' })).toThrow(/does not declare/);
    expect(() => checkResponse(base, 'GET', '/v1/things/7', 200, json, { id: 'seven' })).toThrow(/not valid/);
    expect(() => checkResponse(base, 'GET', '/v1/things/7', 200, json, { id: 7, extra: 1 })).toThrow(/not valid/);
    expect(() => checkResponse(base, 'GET', '/v1/things/7', 200, json, { id: 7, at: 'yesterday' })).toThrow(/not valid/);
    expect(() => checkResponse(base, 'GET', '/v1/things/7', 404, json, {})).toThrow(/not valid/);
    expect(() => checkResponse(base, 'GET', '/v1/things/7', 200, 'text/html', '<p>')).toThrow(/text\/html/);
  });

  it('leaves alone what the document does not describe: other servers, routes and methods', () => {
    expect(() => checkResponse('http://elsewhere.test', 'GET', '/v1/things/7', 500, json, {})).not.toThrow();
    expect(() => checkResponse(base, 'GET', '/console/app.js', 200, 'text/javascript', '')).not.toThrow();
    expect(() => checkResponse(base, 'DELETE', '/v1/things/7', 404, json, { error: 'no route' })).not.toThrow();
  });
});
