import { z } from 'zod';

// The spec lists field types but not which fields are required or nullable ("not shown"), so
// everything except the identifiers tolerates null or absence, and unknown extra fields pass.
// snake_case stops here: each schema transforms into the camelCase domain type the app uses.

const optionalText = z
  .string()
  .nullish()
  .transform((value) => value ?? null);

// The spec says "number (decimal)"; a decimal sent as a string ("12.50") is still read, not refused.
const optionalAmount = z
  .union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)])
  .nullish()
  .transform((value) => (value === null || value === undefined ? null : Number(value)));

const optionalCount = z
  .number()
  .int()
  .nonnegative()
  .nullish()
  .transform((value) => value ?? null);

export const ExtensionsSchema = z
  .looseObject({
    cache: optionalText,
    trace_id: optionalText,
    timestamp: optionalText,
  })
  .nullish();

/** The outer envelope; `details.data` is checked separately so a payload mismatch can name its path. */
export const EnvelopeSchema = z.looseObject({
  status: z.number().nullish(),
  success: z.boolean(),
  details: z.looseObject({
    data: z.unknown(),
    extensions: ExtensionsSchema,
  }),
});

const ItemSchema = z
  .looseObject({
    id: optionalText,
    title: optionalText,
    quantity: optionalCount,
    amount: optionalAmount,
  })
  .nullish()
  .transform((item) => ({
    id: item?.id ?? null,
    title: item?.title ?? null,
    quantity: item?.quantity ?? null,
    amount: item?.amount ?? null,
  }));

export const OrderSummarySchema = z
  .looseObject({
    id: z.string().min(1),
    reference_id: optionalText,
    status: optionalText,
    item: ItemSchema,
    created_at: optionalText,
  })
  .transform((order) => ({
    id: order.id,
    referenceId: order.reference_id,
    status: order.status,
    item: order.item,
    createdAt: order.created_at,
  }));

export const OrderListSchema = z
  .looseObject({
    hits: optionalCount,
    orders: z.array(OrderSummarySchema),
    pages: z
      .looseObject({
        page: optionalCount,
        total: optionalCount,
        limit: optionalCount,
      })
      .nullish(),
  })
  .transform((list) => ({
    hits: list.hits ?? list.orders.length,
    orders: list.orders,
    page: list.pages?.page ?? null,
    totalPages: list.pages?.total ?? null,
    limit: list.pages?.limit ?? null,
  }));

const KeySchema = z
  .looseObject({
    value: optionalText,
    type: optionalText,
  })
  .transform((key) => ({ value: key.value, type: key.type }));

const ProductSchema = z
  .looseObject({
    id: optionalText,
    title: optionalText,
    quantity: optionalCount,
    keys: z
      .array(KeySchema)
      .nullish()
      .transform((keys) => keys ?? []),
  })
  .transform((product) => ({
    id: product.id,
    title: product.title,
    quantity: product.quantity,
    keys: product.keys,
  }));

export const BalanceSchema = z
  .looseObject({
    balance: optionalAmount,
    credit_limit: optionalAmount,
  })
  .nullish()
  .transform((balance) => (balance ? { balance: balance.balance, creditLimit: balance.credit_limit } : null));

export const OrderKeysSchema = z
  .looseObject({
    id: z.string().min(1),
    status: optionalText,
    products: z
      .array(ProductSchema)
      .nullish()
      .transform((products) => products ?? []),
    total_debit: optionalAmount,
    balance: BalanceSchema,
  })
  .transform((keys) => ({
    orderId: keys.id,
    status: keys.status,
    products: keys.products,
    totalDebit: keys.total_debit,
    balance: keys.balance,
  }));

export type OrderSummary = z.output<typeof OrderSummarySchema>;
export type OrderList = z.output<typeof OrderListSchema>;
export type OrderKeysData = z.output<typeof OrderKeysSchema>;
export type DigitalKey = OrderKeysData['products'][number]['keys'][number];
export type KeyedProduct = OrderKeysData['products'][number];
export type AccountBalance = NonNullable<OrderKeysData['balance']>;
