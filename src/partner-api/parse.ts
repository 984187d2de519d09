import type { z } from 'zod';
import { PartnerApiError } from './errors.js';
import { EnvelopeSchema } from './schemas.js';
import type { JsonResult } from './to-partner-error.js';

/**
 * Checks the envelope, then the payload; a mismatch is invalid_response naming the paths, never the
 * values (they may be keys). `repair` gets one chance at a payload the fast strict check refused.
 */
export function parsePayload<Schema extends z.ZodType>(
  result: JsonResult,
  schema: Schema,
  operation: string,
  repair?: (data: unknown) => unknown,
): z.output<Schema> {
  const envelope = EnvelopeSchema.safeParse(result.body);
  if (!envelope.success) throw schemaError(envelope.error, operation, result.traceId, 'envelope');
  const data = envelope.data.details.data;
  const payload = schema.safeParse(data);
  if (payload.success) return payload.data;
  const repaired = repair ? schema.safeParse(repair(data)) : undefined;
  if (repaired?.success) return repaired.data;
  throw schemaError(payload.error, operation, result.traceId, 'details.data');
}

function schemaError(error: z.ZodError, operation: string, traceId: string | undefined, where: string) {
  const paths = error.issues
    .slice(0, 5)
    .map((issue) => `${where}${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.code}`)
    .join('; ');
  return new PartnerApiError({
    kind: 'invalid_response',
    operation,
    status: 200,
    traceId,
    cause: new Error(`Response did not match the schema (${paths})`),
  });
}
