export type { DenialReason } from './access.js';
export {
  accessDeniedBlocks,
  renderAccessDenied,
  renderKeyLimit,
  renderShareUnconfirmed,
  renderSharingRefused,
} from './access.js';
export { ActionIds } from './action-ids.js';
export type { AuditLineInput } from './audit.js';
export { renderAuditLine } from './audit.js';
export type { AuditTrailLine } from './audit-trail.js';
export { AUDIT_USAGE, renderAuditTrail } from './audit-trail.js';
export type { OrderButton, PageButton } from './button-values.js';
export { decodeButton, OrderButtonSchema, PageButtonSchema } from './button-values.js';
export type { CopyCoverage } from './copy-notes.js';
export { copySourceNote, stampedFromCopy } from './copy-notes.js';
export { deliveryWarnings } from './delivery-warnings.js';
export type { CopySyncState, DigestInput } from './digest.js';
export { DIGEST_LIST_LIMIT, describeDay, renderDailyDigest } from './digest.js';
export type { ExportScope } from './export.js';
export {
  EXPORT_CALLBACK_ID,
  EXPORT_FIELDS,
  exportButtonBlock,
  exportMessages,
  renderExportModal,
} from './export.js';
export type { FinanceAlertChange, FinanceAlertInput } from './finance.js';
export { renderBalanceReadableAgain, renderBalanceUnreadable, renderFinanceAlert } from './finance.js';
export type { HomeInput } from './home.js';
export { homeWithNotice, renderHome, sentToDirectText } from './home.js';
export type { KeyPiece } from './key-classification.js';
export { classifyKey } from './key-classification.js';
export type { KeyMessages, RevealLinkFor } from './key-messages.js';
export { MAX_KEY_MESSAGES, renderKeyMessages } from './key-messages.js';
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
export { renderOrderCard, withoutShare } from './order-card.js';
export { RESULTS_PER_PAGE, renderResultList } from './order-list.js';
export { TABLE_MAX_ROWS } from './order-table.js';
export type { UnfurlFromCopy } from './order-unfurl.js';
export { renderOrderUnfurl } from './order-unfurl.js';
export type { SearchField, SearchFilters, SearchPage, SearchResultsInput } from './search-orders.js';
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
  SearchPageSchema,
  searchButtonBlock,
  searchOrdersButton,
} from './search-orders.js';
export type { Block, RenderOptions, SlackMessage } from './types.js';
