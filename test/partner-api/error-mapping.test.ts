import { describe, expect, it } from 'vitest';
import {
  classifyFailure,
  endpointOf,
  isFailureBody,
  readUpstreamError,
} from '../../src/partner-api/error-mapping.js';
import { faultOf, PartnerApiError, partnerErrorCodec } from '../../src/partner-api/errors.js';

// Every error-body shape comparable wholesale APIs document, with the wordings they use. Each row:
// the HTTP status, the body, the kind Order Desk must read, and the code and message it must find.
const CASES: Array<[string, number, unknown, string, string | undefined, string | undefined]> = [
  [
    'the spec-worded 400 ({code, message})',
    400,
    { code: 'ORDER_NOT_COMPLETED', message: 'Order X is not in a completed state' },
    'not_ready',
    'ORDER_NOT_COMPLETED',
    'Order X is not in a completed state',
  ],
  [
    'a problem+json 422 ({kind, status, title, detail})',
    422,
    {
      kind: 'ORDER_NOT_DISPATCHED',
      status: 422,
      title: 'Unprocessable Entity',
      detail: 'Not dispatched yet, retry later',
    },
    'not_ready',
    'ORDER_NOT_DISPATCHED',
    'Not dispatched yet, retry later',
  ],
  [
    'an OAuth-style 400 ({error, error_description})',
    400,
    { error: 'order_pending', error_description: 'The order is pending.' },
    'not_ready',
    'order_pending',
    'The order is pending.',
  ],
  [
    "a {status: 'ERROR'} 400 with the wording only in the message",
    400,
    { status: 'ERROR', message: 'Order is still being processed', code: 1042 },
    'not_ready',
    '1042',
    'Order is still being processed',
  ],
  [
    'the envelope with details.error (the simulator’s default)',
    409,
    {
      status: 409,
      success: false,
      details: { data: null, error: { code: 'ORDER_NOT_COMPLETED', message: 'Order X is PROCESSING' } },
    },
    'not_ready',
    'ORDER_NOT_COMPLETED',
    'Order X is PROCESSING',
  ],
  [
    'a 200 with success: false and a not-found code',
    200,
    {
      status: 404,
      success: false,
      details: { data: null, error: { code: 'ORDER_NOT_FOUND', message: 'Order X was not found.' } },
    },
    'not_found',
    'ORDER_NOT_FOUND',
    'Order X was not found.',
  ],
  [
    "a 200 with status: 'ERROR' and an in-process wording",
    200,
    { status: 'ERROR', message: 'Order in process', code: 'E_STATE' },
    'not_ready',
    'E_STATE',
    'Order in process',
  ],
  [
    'a 200 with success: false and nothing else',
    200,
    { success: false },
    'invalid_response',
    undefined,
    undefined,
  ],
  [
    'a 200 whose code says the key is wrong',
    200,
    { status: 'ERROR', code: 'INVALID_API_KEY', message: 'Key rejected' },
    'unauthorized',
    'INVALID_API_KEY',
    'Key rejected',
  ],
  [
    'a 400 whose message says "processing" only as part of an error',
    400,
    { code: 'BAD_REQUEST', message: 'Error processing request: limit too large' },
    'invalid_input',
    'BAD_REQUEST',
    'Error processing request: limit too large',
  ],
  [
    'a 400 with a not-found code',
    400,
    { code: 'ORDER_NOT_FOUND', message: 'No order X' },
    'not_found',
    'ORDER_NOT_FOUND',
    'No order X',
  ],
  [
    'a 401 (the status decides, whatever the words)',
    401,
    { error: 'invalid_token', error_description: 'Order pending review' },
    'unauthorized',
    'invalid_token',
    'Order pending review',
  ],
  [
    'a 404 with a problem type URI',
    404,
    { type: 'https://partner.example/errors/order-not-found', title: 'Order not found', status: 404 },
    'not_found',
    'order-not-found',
    'Order not found',
  ],
  ['a 503 with an HTML body', 503, undefined, 'unavailable', undefined, undefined],
  [
    'a 429 with {code, message}',
    429,
    { code: 'RATE_LIMIT', message: 'Too many requests, retry later' },
    'rate_limited',
    'RATE_LIMIT',
    'Too many requests, retry later',
  ],
  [
    'a 422 pre-order',
    422,
    { code: 'PRE_ORDER', message: 'Keys are released on 2026-12-05.' },
    'not_ready',
    'PRE_ORDER',
    'Keys are released on 2026-12-05.',
  ],
  [
    'a 422 "has not been dispatched"',
    422,
    { message: "Order hasn't been dispatched yet" },
    'not_ready',
    undefined,
    "Order hasn't been dispatched yet",
  ],
  [
    'an errors array',
    400,
    { errors: [{ code: 'VALIDATION_FAILED', message: 'limit must be at most 500' }] },
    'invalid_input',
    'VALIDATION_FAILED',
    'limit must be at most 500',
  ],
  ['a 418 with nothing readable', 418, {}, 'invalid_response', undefined, undefined],
];

describe('partner error mapping', () => {
  it.each(CASES)('%s', (_name, status, body, kind, code, message) => {
    const upstream = readUpstreamError(body);
    expect(upstream.code).toBe(code);
    expect(upstream.message).toBe(message);
    expect(classifyFailure(status, upstream, 'keys')).toBe(kind);
  });

  // The same words from the list endpoint are about Order Desk's request, not about an order's keys.
  it.each([
    [400, { message: 'status must be one of pending, completed' }, 'not_ready', 'invalid_input'],
    [400, { code: 'ORDER_PENDING', message: 'x' }, 'not_ready', 'invalid_input'],
    [422, { code: 'ORDER_NOT_COMPLETED', message: 'Order X is not completed' }, 'not_ready', 'invalid_input'],
    [409, { message: 'Order in process' }, 'not_ready', 'invalid_input'],
    [422, {}, 'not_ready', 'invalid_input'],
    [425, {}, 'not_ready', 'unavailable'],
    [
      200,
      {
        status: 422,
        success: false,
        details: { data: null, error: { message: 'filter pending is not supported' } },
      },
      'not_ready',
      'invalid_input',
    ],
    [200, { status: 'ERROR', message: 'Order in process', code: 'E_STATE' }, 'not_ready', 'invalid_response'],
    [404, { code: 'NOT_FOUND' }, 'not_found', 'not_found'],
  ] as const)('a %i %j: keys endpoint %s, list endpoint %s', (status, body, forKeys, forList) => {
    const upstream = readUpstreamError(body);
    expect(classifyFailure(status, upstream, 'keys')).toBe(forKeys);
    expect(classifyFailure(status, upstream, 'list')).toBe(forList);
  });

  it.each([
    [
      { code: 'PRE_ORDER', message: 'Order X is a pre-order; its keys are released on 2026-12-07.' },
      '2026-12-07',
    ],
    [
      { code: 'PRE_ORDER', message: 'Not released yet', release_date: '2026-12-07T00:00:00.000Z' },
      '2026-12-07',
    ],
    [
      { details: { error: { code: 'PRE_ORDER', availableAt: 'x', available_at: '2027-01-15' } } },
      '2027-01-15',
    ],
    [{ message: 'Available from 2026-12-24 10:00 UTC' }, '2026-12-24'],
    [{ message: 'Order placed on 2026-11-01 is still pending' }, undefined],
    [{ message: 'Keys are released on 2026-02-31.' }, undefined],
    [{ code: 'ORDER_NOT_COMPLETED', message: 'Order X is not completed' }, undefined],
  ])('%j names the release day %j', (body, day) => {
    expect(readUpstreamError(body).releaseDate).toBe(day);
  });

  it('a not-ready error with a release day says when, and does not say "in a few minutes"', () => {
    const error = new PartnerApiError({ kind: 'not_ready', operation: 'GET /x', releaseDate: '2026-12-07' });
    expect(error.userMessage).toBe(
      'The partner has not released the keys for this order yet: they are expected on 7 December 2026. Until then there is nothing to retrieve; run `/order-keys` again on or after that day.',
    );
    expect(new PartnerApiError({ kind: 'not_ready', operation: 'GET /x' }).userMessage).toContain(
      'try again in a few minutes',
    );
  });

  it.each([
    ['GET /v1/partners/orders/{order_id}/keys', 'keys'],
    ['GET /v1/partners/orders', 'list'],
  ] as const)('%s is the %s endpoint', (operation, endpoint) => {
    expect(endpointOf(operation)).toBe(endpoint);
  });

  it.each([
    [{ status: 200, success: true, details: { data: { orders: [] } } }, false],
    [{ success: true, details: { data: null } }, false],
    [{ status: 'OK', details: { data: { orders: [] } } }, false],
    [{ status: 200, success: false, details: { data: null } }, true],
    [{ status: 'ERROR', message: 'x' }, true],
    [{ status: 'error', details: { data: { orders: [] } } }, true],
    [{ error: 'invalid_token' }, true],
    [{ details: { data: null, error: { code: 'X' } } }, true],
    [[], true],
    ['OK', true],
  ])('a 200 body %j is a failure: %s', (body, failure) => {
    expect(isFailureBody(body)).toBe(failure);
  });

  it.each([
    [{ kind: 'unauthorized' }, 'ours'],
    [{ kind: 'forbidden' }, 'ours'],
    [{ kind: 'invalid_input', status: 400 }, 'ours'],
    [{ kind: 'invalid_input' }, 'user'],
    [{ kind: 'invalid_response', status: 302 }, 'ours'],
    [{ kind: 'invalid_response', status: 200 }, 'partner'],
    [{ kind: 'unavailable', status: 503 }, 'partner'],
    [{ kind: 'mismatch', status: 200 }, 'partner'],
    [{ kind: 'not_found', status: 404 }, 'user'],
    [{ kind: 'not_ready', status: 409 }, 'user'],
  ] as const)('%j is the fault of: %s', (details, fault) => {
    expect(faultOf(new PartnerApiError({ operation: 'GET /x', ...details }))).toBe(fault);
  });

  it('a failure told to another replica (as JSON) reads the same there, and carries no cause', () => {
    const error = new PartnerApiError({
      kind: 'not_ready',
      operation: 'GET /v1/partners/orders/{order_id}/keys',
      status: 409,
      traceId: 'abc123',
      code: 'PRE_ORDER',
      releaseDate: '2026-12-07',
      cause: new Error('HTTP 409 from a host'),
    });
    const stored = JSON.parse(JSON.stringify(partnerErrorCodec.encode(error)));
    expect(JSON.stringify(stored)).not.toContain('host');
    const decoded = partnerErrorCodec.decode(stored);
    expect(decoded).toBeInstanceOf(PartnerApiError);
    expect({ ...decoded }).toEqual({ ...error });
    expect(partnerErrorCodec.decode(partnerErrorCodec.encode(new Error('disk full'))).message).toBe(
      'disk full',
    );
  });
});
