import { z } from 'zod';
import { isValidOrderId, MAX_SEARCH_LENGTH } from '../partner-api/index.js';

// Button values carry state (which order, which page) instead of a server-side session, so any replica
// can serve the click. They never carry a secret, and come back in as untrusted input.

const OrderIdSchema = z.string().refine(isValidOrderId);

export const OrderButtonSchema = z.object({
  o: OrderIdSchema,
  q: z.string().max(MAX_SEARCH_LENGTH).optional(),
  p: z.number().int().min(0).max(10_000).optional(),
});

export const PageButtonSchema = z.object({
  q: z.string().max(MAX_SEARCH_LENGTH),
  p: z.number().int().min(0).max(10_000),
});

export function encodeButton(value: z.output<typeof OrderButtonSchema | typeof PageButtonSchema>): string {
  return JSON.stringify(value);
}

/** Parses a button value; undefined when it is not one of ours or was tampered with. */
export function decodeButton<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
): z.output<Schema> | undefined {
  if (typeof raw !== 'string' || raw.length > 2_000) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
