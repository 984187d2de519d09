export {
  renderAccessDenied,
  renderKeyLimit,
  renderShareUnconfirmed,
  renderSharingRefused,
} from './access.js';
export { ActionIds } from './action-ids.js';
export { type AuditLineInput, renderAuditLine } from './audit.js';
export { AUDIT_USAGE, renderAuditTrail } from './audit-trail.js';
export { decodeButton, OrderButtonSchema, PageButtonSchema } from './button-values.js';
export { stampedFromCopy } from './copy-notes.js';
export { deliveryWarnings } from './delivery-warnings.js';
export type { CopySyncState, DigestInput } from './digest.js';
export { DIGEST_LIST_LIMIT, describeDay, renderDailyDigest } from './digest.js';
export { EXPORT_CALLBACK_ID, EXPORT_FIELDS, exportMessages, renderExportModal } from './export.js';
export { renderBalanceReadableAgain, renderBalanceUnreadable, renderFinanceAlert } from './finance.js';
export { type HomeInput, homeWithNotice, renderHome, sentToDirectText } from './home.js';
export { classifyKey } from './key-classification.js';
export { renderKeyMessages } from './key-messages.js';
export { renderNoOrderNamed, renderSeveralOrders } from './keys-resolution.js';
export {
  keysUsage,
  renderNoMatch,
  renderNoOrdersInMessage,
  renderNotice,
  renderOrderHelp,
  renderOrdersInMessage,
  renderPartnerError,
  renderUnrelatedResults,
} from './messages.js';
export { renderOrderCard } from './order-card.js';
export { RESULTS_PER_PAGE, renderResultList } from './order-list.js';
export { CHANNEL_AUDIENCE, type OrderOffer, orderOffer, type Surface } from './order-policy.js';
export { TABLE_MAX_ROWS } from './order-table.js';
export { renderOrderUnfurl } from './order-unfurl.js';
export {
  describeSearch,
  encodeSearchPage,
  isCalendarDay,
  renderSearchModal,
  renderSearchNoMatch,
  renderSearchResults,
  renderSearchSent,
  renderSearchUnavailable,
  SEARCH_CALLBACK_ID,
  SEARCH_FIELDS,
  SEARCH_STATUSES,
  type SearchField,
  type SearchFilters,
  SearchPageSchema,
  searchButtonBlock,
} from './search-orders.js';
export type { Block, CopyCoverage, RenderOptions, SlackMessage } from './types.js';
