const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A partner time in the spec's form (ISO 8601, UTC, milliseconds), converted when readable, else kept.
 * In this form times compare as text in time order: the order copy sorts and filters them as text.
 */
export function isoUtc(value: string): string {
  if (ISO_UTC.test(value)) return value;
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}
