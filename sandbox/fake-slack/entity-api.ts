import { refusedAnswer } from './block-kit.js';
import type { WebApiFamily } from './web-api.js';
import { parseJsonArg } from './web-api-args.js';
import {
  actionButtonErrors,
  entityErrors,
  PANEL_ERROR_STATUSES,
  type RecordedEntity,
} from './work-objects.js';

// entity.*: the app fills a Work Object's flexpane (entity.presentDetails), answering Slack's
// entity_details_requested or a click in the panel, with the trigger_id that came with it. The
// panel holds one entity (no `entities` array, no app_unfurl_url), the one the trigger was issued
// for; or an error form; or asks the user to authenticate first.

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const entityMethods: WebApiFamily = {
  'entity.presentDetails': (args, slack) => {
    const triggerId = String(args.trigger_id ?? '');
    const trigger = triggerId ? slack.workObjects.take(triggerId) : undefined;
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    const userAuthRequired =
      args.user_auth_required === true ||
      args.user_auth_required === 'true' ||
      args.user_auth_required === '1';
    const userAuthUrl = args.user_auth_url === undefined ? undefined : String(args.user_auth_url);
    if (userAuthRequired && !userAuthUrl) return { ok: false, error: 'user_auth_url_missing' };

    const rawMetadata = args.metadata === undefined ? undefined : parseJsonArg(args.metadata);
    const rawError = args.error === undefined ? undefined : parseJsonArg(args.error);
    if (args.metadata !== undefined && !isObject(rawMetadata))
      return refusedAnswer('invalid_metadata', ['metadata is not a JSON object']);
    if (args.error !== undefined && !isObject(rawError))
      return refusedAnswer('invalid_metadata', ['error is not a JSON object']);
    const metadata = isObject(rawMetadata) ? rawMetadata : undefined;
    const error = isObject(rawError) ? rawError : undefined;
    if (!metadata && !error && !userAuthRequired)
      return refusedAnswer('invalid_metadata', ['give metadata, an error or user_auth_required']);
    const problems: string[] = [];
    if (metadata) {
      if (metadata.entities !== undefined)
        problems.push('metadata is one entity, not an entities array (pointer: /metadata/entities)');
      else problems.push(...entityErrors(metadata, 'entity.presentDetails', '/metadata'));
    }
    if (error) problems.push(...panelErrorErrors(error));
    if (problems.length > 0) return refusedAnswer('invalid_metadata', problems);
    const entity = metadata as RecordedEntity | undefined;
    if (entity && entity.external_ref.id !== trigger.externalRefId)
      return { ok: false, error: 'entity_metadata_does_not_match_trigger' };

    slack.workObjects.panels.set(triggerId, {
      triggerId,
      user: trigger.user,
      externalRefId: trigger.externalRefId,
      url: trigger.url,
      at: Date.now(),
      metadata: entity,
      error,
      userAuthRequired,
      userAuthUrl,
    });
    return { ok: true };
  },
};

/** The panel's error form: a documented status, optional title, message and buttons. */
function panelErrorErrors(error: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (!PANEL_ERROR_STATUSES.includes(error.status as (typeof PANEL_ERROR_STATUSES)[number]))
    problems.push(`status must be one of ${PANEL_ERROR_STATUSES.join(', ')} (pointer: /error/status)`);
  for (const name of ['custom_message', 'custom_title'])
    if (error[name] !== undefined && typeof error[name] !== 'string')
      problems.push(`${name} must be a string (pointer: /error/${name})`);
  if (error.message_format !== undefined && error.message_format !== 'markdown')
    problems.push('message_format must be "markdown" (pointer: /error/message_format)');
  if (error.actions !== undefined) {
    if (!Array.isArray(error.actions)) problems.push('actions must be an array (pointer: /error/actions)');
    else
      error.actions.forEach((button, index) => {
        problems.push(...actionButtonErrors(button, `/error/actions/${index}`));
      });
  }
  return problems;
}
