export type { HistoryOptions, PartnerClient, PartnerClientOptions, QueryParamNames } from './client.js';
export { createPartnerClient, orderContainsText } from './client.js';
export type { PartnerErrorKind } from './errors.js';
export { faultOf, isPartnerApiError, PartnerApiError } from './errors.js';
export { isValidOrderId, MAX_PAGE_SIZE, MAX_SEARCH_LENGTH } from './inputs.js';
export type { DecodedImage, ImageFormat, KeyKind } from './key-types.js';
export { decodeImageKey, describeSize, normalizeKeyType } from './key-types.js';
export type { RetryPolicy, TransportEvent, TransportMetrics } from './transport.js';
export type * from './types.js';
