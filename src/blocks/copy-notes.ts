import type { PartnerApiError } from '../partner-api/index.js';
import { escapeMrkdwn, plural, slackDate } from './format.js';
import { changeBlocks, context } from './primitives.js';
import type { Block, CopyCoverage, RenderOptions, SlackMessage } from './types.js';

const synced = (coverage: CopyCoverage, options: RenderOptions) =>
  `synced ${slackDate(coverage.syncedAt, options.now)}`;

type CopyFailure = Pick<PartnerApiError, 'kind' | 'traceId' | 'retryAfterSeconds'> | undefined;

/** A small-print line saying the list comes from Order Desk's copy, and how complete it is. */
export function copySourceNote(
  coverage: CopyCoverage,
  options: RenderOptions,
  partnerAskedToo: boolean,
): Block {
  const completeness = coverage.complete
    ? `${plural(coverage.orders, 'order')}, the whole history`
    : `${plural(coverage.orders, 'order')} so far: the copy is still being filled${partnerAskedToo ? ', so the partner API was searched too' : ''}`;
  return context(
    `Found in Order Desk's copy of the order history (${completeness}; ${synced(coverage, options)}). IDs, references and product titles are searched.`,
  );
}

/** Why the copy answers instead of the partner, in words, with the partner's trace ID. */
function whyFromCopy(failure: CopyFailure, options: RenderOptions): string {
  const trace = failure?.traceId ? ` (partner trace ID \`${escapeMrkdwn(failure.traceId)}\`)` : '';
  switch (failure?.kind) {
    case 'rate_limited': {
      const again =
        failure.retryAfterSeconds === undefined
          ? ''
          : ` and answers again ${slackDate(new Date(options.now.getTime() + failure.retryAfterSeconds * 1000).toISOString(), options.now)}`;
      return `the partner API is rate-limiting Order Desk${trace}${again}`;
    }
    case 'unavailable':
      return `the partner API is unavailable${trace}`;
    case 'invalid_response':
      return `the partner API's answer could not be read${trace}`;
    default:
      return `the partner API is not answering${trace}`;
  }
}

/** The stamp on anything read from the copy for a partner that is not answering: one wording everywhere. */
export function copyStamp(
  coverage: CopyCoverage,
  options: RenderOptions,
  failure: CopyFailure,
  movedOn = 'statuses may have moved on since.',
): Block {
  return context(
    `:card_index_dividers: From Order Desk's copy of the order history, ${synced(coverage, options)}: ${whyFromCopy(failure, options)}, so ${movedOn}`,
  );
}

/** An answer read from the copy because the partner API is not answering, with the stamp on top. */
export function stampedFromCopy(
  message: SlackMessage,
  coverage: CopyCoverage,
  options: RenderOptions,
  failure: CopyFailure,
): SlackMessage {
  const stamp = copyStamp(coverage, options, failure);
  return changeBlocks(message, (blocks) => [stamp, ...blocks]);
}
