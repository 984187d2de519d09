import { z } from 'zod';

// The spec does not say which fields are required or nullable, so all but the identifiers tolerate null
// or absence; unknown fields are stripped. snake_case stops here: one transform per payload maps it to
// camelCase. Plain type checks only (no .int(), no unions), so zod stays on its compiled fast path and
// a 500-order page stays cheap to check (the history-scan benchmark).

const optionalText = z.string().nullish();
const optionalAmount = z.number().nullish();
const optionalCount = z.number().nullish();

const orNull = <T>(value: T | null | undefined): T | null => value ?? null;

// The outer envelope; `details.data` is checked separately so a mismatch can name its path. Failures
// and the trace ID were already read, so nothing else of it is checked.
export const EnvelopeSchema = z.object({ details: z.object({ data: z.unknown() }) });

export const RawOrderSummary = z.object({
  id: z.string().min(1),
  reference_id: optionalText,
  status: optionalText,
  item: z
    .object({ id: optionalText, title: optionalText, quantity: optionalCount, amount: optionalAmount })
    .nullish(),
  created_at: optionalText,
});

function toOrderSummary(order: z.output<typeof RawOrderSummary>) {
  return {
    id: order.id,
    referenceId: orNull(order.reference_id),
    status: orNull(order.status),
    item: {
      id: orNull(order.item?.id),
      title: orNull(order.item?.title),
      quantity: orNull(order.item?.quantity),
      amount: orNull(order.item?.amount),
    },
    createdAt: orNull(order.created_at),
  };
}

// Many servers send `null` for an empty list; the schema stays strict (the fast path) and the client's
// repair step turns those nulls into empty lists (client.ts).
export const OrderListSchema = z
  .object({
    hits: optionalCount,
    orders: z.array(RawOrderSummary),
    pages: z.object({ page: optionalCount, total: optionalCount, limit: optionalCount }).nullish(),
  })
  .transform((list) => ({
    hits: list.hits ?? list.orders.length,
    orders: list.orders.map(toOrderSummary),
    page: orNull(list.pages?.page),
    totalPages: orNull(list.pages?.total),
    limit: orNull(list.pages?.limit),
  }));

const RawKey = z.object({ value: optionalText, type: optionalText });

const RawProduct = z.object({
  id: optionalText,
  title: optionalText,
  quantity: optionalCount,
  keys: z.array(RawKey).nullish(),
});

export const OrderKeysSchema = z
  .object({
    // Nullable like the rest: when present it is checked against the order asked for (client.keys).
    id: optionalText,
    status: optionalText,
    products: z.array(RawProduct).nullish(),
    total_debit: optionalAmount,
    balance: z.object({ balance: optionalAmount, credit_limit: optionalAmount }).nullish(),
  })
  .transform((order) => ({
    orderId: orNull(order.id),
    status: orNull(order.status),
    products: (order.products ?? []).map((product) => ({
      id: orNull(product.id),
      title: orNull(product.title),
      quantity: orNull(product.quantity),
      keys: (product.keys ?? []).map((key) => ({ value: orNull(key.value), type: orNull(key.type) })),
    })),
    totalDebit: orNull(order.total_debit),
    balance: order.balance
      ? { balance: orNull(order.balance.balance), creditLimit: orNull(order.balance.credit_limit) }
      : null,
  }));

export type OrderSummary = ReturnType<typeof toOrderSummary>;
export type OrderKeysData = z.output<typeof OrderKeysSchema>;
export type KeyedProduct = OrderKeysData['products'][number];
export type DigitalKey = KeyedProduct['keys'][number];
export type AccountBalance = NonNullable<OrderKeysData['balance']>;
