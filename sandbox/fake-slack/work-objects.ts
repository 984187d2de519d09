import { randomBytes } from 'node:crypto';
import { refusedAnswer } from './block-kit.js';
import { parseJsonArg, type WebApiResult } from './web-api-args.js';

// Slack's Work Objects in the fake Slack: the entity schema every entity is checked against (the
// `metadata.entities` of chat.unfurl and chat.postMessage, the `metadata` of entity.presentDetails),
// and the flexpane's record: the trigger_ids Slack issues for entity_details_requested and for clicks
// in a flexpane, and what the app put in each panel. The rules are those of Slack's "Implementing
// Work Objects" page (docs.slack.dev/messaging/work-objects-implementation) and the methods' pages;
// where the docs are silent the fake is strict, so the app is written for the stricter case.

export const ENTITY_TYPES = [
  'slack#/entities/file',
  'slack#/entities/task',
  'slack#/entities/incident',
  'slack#/entities/content_item',
  'slack#/entities/item',
] as const;

/** The documented `type`s of a field ("Data types"). */
export const FIELD_TYPES = [
  'string',
  'integer',
  'boolean',
  'array',
  'slack#/types/user',
  'slack#/types/channel_id',
  'slack#/types/timestamp',
  'slack#/types/date',
  'slack#/types/image',
  'slack#/types/entity_ref',
  'slack#/types/link',
  'slack#/types/email',
] as const;

/** What an `array` field may hold (item_type). */
const ARRAY_ITEM_TYPES = new Set([
  'string',
  'integer',
  'slack#/types/channel_id',
  'slack#/types/user',
  'slack#/types/entity_ref',
]);

/** entity.presentDetails `error.status`. */
export const PANEL_ERROR_STATUSES = [
  'restricted',
  'internal_error',
  'not_found',
  'custom',
  'custom_partial_view',
  'timeout',
  'edit_error',
] as const;

export const WORK_OBJECT_LIMITS = {
  primaryActions: 2,
  overflowActions: 5,
  actionId: 255,
  actionValue: 2000,
  actionUrl: 3000,
  accessibilityLabel: 75,
} as const;

const TAG_COLORS = new Set(['red', 'yellow', 'green', 'gray', 'blue']);
const BUTTON_STYLES = new Set(['primary', 'danger']);

/** Where an entity is sent: chat.unfurl needs app_unfurl_url, entity.presentDetails must not have it. */
export type EntitySurface = 'chat.unfurl' | 'chat.postMessage' | 'entity.presentDetails';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';
const isHttpUrl = (value: unknown): boolean => {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** Every way `entity` breaks the documented schema, each with its JSON pointer; [] when valid. */
export function entityErrors(entity: unknown, surface: EntitySurface, path: string): string[] {
  if (!isObject(entity)) return [`must be an object (pointer: ${path})`];
  const errors: string[] = [];
  const at = (field: string) => `${path}/${field}`;
  if (!ENTITY_TYPES.includes(entity.entity_type as (typeof ENTITY_TYPES)[number]))
    errors.push(`entity_type must be one of ${ENTITY_TYPES.join(', ')} (pointer: ${at('entity_type')})`);
  if (!isObject(entity.external_ref) || !isText(entity.external_ref.id))
    errors.push(`missing required field: id (pointer: ${at('external_ref')})`);
  else if (entity.external_ref.type !== undefined && typeof entity.external_ref.type !== 'string')
    errors.push(`type must be a string (pointer: ${at('external_ref/type')})`);
  if (!isHttpUrl(entity.url)) errors.push(`missing required field: url, an http(s) URL (pointer: ${path})`);
  if (surface === 'chat.unfurl' && !isText(entity.app_unfurl_url))
    errors.push(`missing required field: app_unfurl_url (pointer: ${path})`);
  if (surface === 'entity.presentDetails' && entity.app_unfurl_url !== undefined)
    errors.push(`app_unfurl_url is not taken by entity.presentDetails (pointer: ${at('app_unfurl_url')})`);
  const payload = entity.entity_payload;
  if (!isObject(payload)) {
    errors.push(`missing required field: entity_payload (pointer: ${path})`);
    return errors;
  }
  errors.push(...attributesErrors(payload.attributes, at('entity_payload/attributes')));
  if (payload.fields !== undefined && !isObject(payload.fields))
    errors.push(`fields must be an object (pointer: ${at('entity_payload/fields')})`);
  // "The item entity does not contain a fields object": everything goes in custom_fields.
  if (entity.entity_type === 'slack#/entities/item' && isObject(payload.fields))
    errors.push(`the item entity has no fields; use custom_fields (pointer: ${at('entity_payload/fields')})`);
  if (payload.custom_fields !== undefined) {
    if (!Array.isArray(payload.custom_fields))
      errors.push(`custom_fields must be an array (pointer: ${at('entity_payload/custom_fields')})`);
    else
      payload.custom_fields.forEach((field, index) => {
        errors.push(...customFieldErrors(field, at(`entity_payload/custom_fields/${index}`)));
      });
  }
  if (
    payload.display_order !== undefined &&
    (!Array.isArray(payload.display_order) || !payload.display_order.every((key) => typeof key === 'string'))
  )
    errors.push(`display_order must be an array of keys (pointer: ${at('entity_payload/display_order')})`);
  if (payload.actions !== undefined)
    errors.push(...actionsErrors(payload.actions, at('entity_payload/actions')));
  return errors;
}

function attributesErrors(attributes: unknown, path: string): string[] {
  if (!isObject(attributes)) return [`missing required field: attributes (pointer: ${path})`];
  const errors: string[] = [];
  if (!isObject(attributes.title) || !isText(attributes.title.text))
    errors.push(`missing required field: text (pointer: ${path}/title)`);
  for (const name of ['display_type', 'display_id', 'product_name'] as const)
    if (attributes[name] !== undefined && typeof attributes[name] !== 'string')
      errors.push(`${name} must be a string (pointer: ${path}/${name})`);
  if (attributes.product_icon !== undefined)
    errors.push(...iconErrors(attributes.product_icon, `${path}/product_icon`));
  if (attributes.metadata_last_modified !== undefined && !Number.isInteger(attributes.metadata_last_modified))
    errors.push(`metadata_last_modified must be a UNIX timestamp (pointer: ${path}/metadata_last_modified)`);
  return errors;
}

function iconErrors(icon: unknown, path: string): string[] {
  if (!isObject(icon)) return [`must be an object (pointer: ${path})`];
  const errors: string[] = [];
  if (!isText(icon.alt_text)) errors.push(`missing required field: alt_text (pointer: ${path})`);
  if (!isHttpUrl(icon.url) && !isObject(icon.slack_file))
    errors.push(`an icon needs a url or a slack_file (pointer: ${path})`);
  return errors;
}

/**
 * A custom field: key, label and type always; a value of that type, except where the type's own
 * property carries it (image: image_url or slack_file; user: user; entity_ref: entity_ref); and the
 * properties the docs allow only with some types (icon, tag_color, format, long: string; link: string,
 * date, timestamp; item_type: array; image_url, slack_file, alt_text: image; user; boolean; entity_ref).
 */
export function customFieldErrors(field: unknown, path: string): string[] {
  if (!isObject(field)) return [`must be an object (pointer: ${path})`];
  const errors: string[] = [];
  if (!isText(field.key)) errors.push(`missing required field: key (pointer: ${path})`);
  if (!isText(field.label)) errors.push(`missing required field: label (pointer: ${path})`);
  const type = field.type;
  if (!FIELD_TYPES.includes(type as (typeof FIELD_TYPES)[number])) {
    errors.push(`type must be one of ${FIELD_TYPES.join(', ')} (pointer: ${path}/type)`);
    return errors;
  }
  const only = (property: string, allowed: readonly string[]) => {
    if (field[property] !== undefined && !allowed.includes(type as string))
      errors.push(
        `${property} can only be set when type is ${allowed.join(' or ')} (pointer: ${path}/${property})`,
      );
  };
  only('icon', ['string']);
  only('tag_color', ['string']);
  only('format', ['string']);
  only('long', ['string']);
  only('link', ['string', 'slack#/types/date', 'slack#/types/timestamp']);
  only('item_type', ['array']);
  for (const property of ['image_url', 'slack_file', 'alt_text']) only(property, ['slack#/types/image']);
  only('user', ['slack#/types/user']);
  only('boolean', ['boolean']);
  only('entity_ref', ['slack#/types/entity_ref']);
  if (field.icon !== undefined && field.tag_color !== undefined)
    errors.push(`icon is not compatible with tag_color (pointer: ${path})`);
  if (field.format !== undefined && (field.icon !== undefined || field.link !== undefined))
    errors.push(`format is incompatible with icon and link (pointer: ${path}/format)`);
  if (field.format !== undefined && field.format !== 'markdown')
    errors.push(`format must be "markdown" (pointer: ${path}/format)`);
  if (field.tag_color !== undefined && !TAG_COLORS.has(String(field.tag_color)))
    errors.push(`tag_color must be one of ${[...TAG_COLORS].join(', ')} (pointer: ${path}/tag_color)`);
  if (field.link !== undefined && !isHttpUrl(field.link))
    errors.push(`link must be a URL (pointer: ${path}/link)`);
  if (field.icon !== undefined) errors.push(...iconErrors(field.icon, `${path}/icon`));
  errors.push(...valueErrors(field, type as string, path));
  return errors;
}

function valueErrors(field: Json, type: string, path: string): string[] {
  const value = field.value;
  const wrong = (what: string) => [`value must be ${what} (pointer: ${path}/value)`];
  switch (type) {
    case 'slack#/types/image':
      return isHttpUrl(field.image_url) || isObject(field.slack_file)
        ? []
        : [`an image field needs image_url or slack_file (pointer: ${path})`];
    case 'slack#/types/user': {
      const user = field.user;
      if (!isObject(user)) return [`missing required field: user (pointer: ${path})`];
      if (isText(user.user_id) === isText(user.text))
        return [`a user is either user_id or text (pointer: ${path}/user)`];
      return [];
    }
    case 'slack#/types/entity_ref': {
      const ref = field.entity_ref;
      if (
        !isObject(ref) ||
        !isHttpUrl(ref.entity_url) ||
        !isObject(ref.external_ref) ||
        !isText(ref.external_ref.id)
      )
        return [`entity_ref needs entity_url and external_ref (pointer: ${path}/entity_ref)`];
      return [];
    }
    default:
      break;
  }
  if (value === undefined || value === null) return [`missing required field: value (pointer: ${path})`];
  switch (type) {
    case 'string':
      return typeof value === 'string' ? [] : wrong('a string');
    case 'integer':
      return Number.isInteger(value) ? [] : wrong('an integer');
    case 'boolean':
      return typeof value === 'boolean' ? [] : wrong('true or false');
    case 'slack#/types/timestamp':
      return Number.isInteger(value) ? [] : wrong('a UNIX timestamp');
    case 'slack#/types/date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)
        ? []
        : wrong('a date as YYYY-MM-DD');
    case 'slack#/types/link':
      return isHttpUrl(value) ? [] : wrong('a URL');
    case 'slack#/types/email':
      return typeof value === 'string' && /^[^@\s]+@[^@\s]+$/.test(value) ? [] : wrong('an email address');
    case 'slack#/types/channel_id':
      return typeof value === 'string' && /^[CGD][A-Z0-9]+$/.test(value) ? [] : wrong('a channel ID');
    case 'array':
      if (!ARRAY_ITEM_TYPES.has(String(field.item_type)))
        return [
          `item_type is required for an array, one of ${[...ARRAY_ITEM_TYPES].join(', ')} (pointer: ${path}/item_type)`,
        ];
      return Array.isArray(value) ? [] : wrong('an array');
    default:
      return [];
  }
}

/** entity_payload.actions: up to 2 primary and 5 overflow buttons. */
function actionsErrors(actions: unknown, path: string): string[] {
  if (!isObject(actions)) return [`must be an object (pointer: ${path})`];
  const errors: string[] = [];
  const lists = [
    ['primary_actions', WORK_OBJECT_LIMITS.primaryActions],
    ['overflow_actions', WORK_OBJECT_LIMITS.overflowActions],
  ] as const;
  for (const [name, most] of lists) {
    const list = actions[name];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      errors.push(`${name} must be an array (pointer: ${path}/${name})`);
      continue;
    }
    if (list.length > most) errors.push(`${name} holds at most ${most} buttons (pointer: ${path}/${name})`);
    list.forEach((button, index) => {
      errors.push(...actionButtonErrors(button, `${path}/${name}/${index}`));
    });
  }
  return errors;
}

/** One action button (in an entity's actions, or in a panel's error form). */
export function actionButtonErrors(button: unknown, path: string): string[] {
  if (!isObject(button)) return [`must be an object (pointer: ${path})`];
  const errors: string[] = [];
  const L = WORK_OBJECT_LIMITS;
  if (!isText(button.text)) errors.push(`missing required field: text (pointer: ${path})`);
  if (!isText(button.action_id) || button.action_id.length > L.actionId)
    errors.push(`action_id is required, at most ${L.actionId} characters (pointer: ${path}/action_id)`);
  if (button.value !== undefined && (typeof button.value !== 'string' || button.value.length > L.actionValue))
    errors.push(`value must be a string of at most ${L.actionValue} characters (pointer: ${path}/value)`);
  if (button.url !== undefined && (!isHttpUrl(button.url) || String(button.url).length > L.actionUrl))
    errors.push(`url must be a URL of at most ${L.actionUrl} characters (pointer: ${path}/url)`);
  if (button.style !== undefined && !BUTTON_STYLES.has(String(button.style)))
    errors.push(`style must be primary or danger (pointer: ${path}/style)`);
  if (
    button.accessibility_label !== undefined &&
    (typeof button.accessibility_label !== 'string' ||
      button.accessibility_label.length > L.accessibilityLabel)
  )
    errors.push(
      `accessibility_label is at most ${L.accessibilityLabel} characters (pointer: ${path}/accessibility_label)`,
    );
  if (button.processing_state !== undefined) {
    const state = button.processing_state;
    if (!isObject(state) || typeof state.enabled !== 'boolean')
      errors.push(`processing_state needs enabled (pointer: ${path}/processing_state)`);
  }
  return errors;
}

/** An entity as recorded on a message (shape checked by entityErrors). */
export type RecordedEntity = Json & {
  entity_type: string;
  url: string;
  external_ref: { id: string; type?: string };
  app_unfurl_url?: string;
  entity_payload: Json;
};

/**
 * The `metadata` of chat.unfurl or chat.postMessage. Absent: no entities. Not JSON or not an object,
 * or `entities` not an array: invalid_metadata_format. An entity against the schema: the method's
 * schema error (chat.postMessage: invalid_metadata_schema; chat.unfurl: error_processing_metadata,
 * "The metadata parameter was invalid"), with every problem and its pointer.
 */
export function readMessageEntities(
  raw: unknown,
  method: 'chat.unfurl' | 'chat.postMessage',
): { entities: RecordedEntity[] } | { refusal: WebApiResult } {
  if (raw === undefined) return { entities: [] };
  const metadata = parseJsonArg(raw);
  if (!isObject(metadata))
    return { refusal: refusedAnswer('invalid_metadata_format', ['metadata is not a JSON object']) };
  // chat.unfurl's metadata is there for its entities; chat.postMessage's may be event metadata alone.
  if (metadata.entities === undefined)
    return method === 'chat.unfurl'
      ? {
          refusal: refusedAnswer('error_processing_metadata', [
            'missing required field: entities (pointer: /metadata)',
          ]),
        }
      : { entities: [] };
  if (!Array.isArray(metadata.entities))
    return {
      refusal: refusedAnswer('invalid_metadata_format', [
        'entities must be an array (pointer: /metadata/entities)',
      ]),
    };
  const schemaError = method === 'chat.unfurl' ? 'error_processing_metadata' : 'invalid_metadata_schema';
  if (method === 'chat.unfurl' && metadata.entities.length === 0)
    return { refusal: refusedAnswer(schemaError, ['entities is empty (pointer: /metadata/entities)']) };
  const errors = metadata.entities.flatMap((entity, index) =>
    entityErrors(entity, method, `/metadata/entities/${index}`),
  );
  if (errors.length > 0) return { refusal: refusedAnswer(schemaError, errors) };
  return { entities: metadata.entities as RecordedEntity[] };
}

/** What a trigger_id for a flexpane stands for: who opened which entity, from where, and when. */
export interface EntityTrigger {
  user: string;
  url: string;
  externalRefId: string;
  externalRefType?: string | undefined;
  appUnfurlUrl?: string | undefined;
  channel?: string | undefined;
  messageTs?: string | undefined;
  threadTs?: string | undefined;
  /** entity_details_requested, or a click on a button in the flexpane. */
  cause: 'entity_details_requested' | 'entity_action';
  issuedAt: number;
  used: boolean;
}

/** What the app put in a panel with entity.presentDetails (accepted calls only). */
export interface FakePanel {
  triggerId: string;
  user: string;
  externalRefId: string;
  url: string;
  at: number;
  metadata?: RecordedEntity | undefined;
  error?: Json | undefined;
  userAuthRequired?: boolean | undefined;
  userAuthUrl?: string | undefined;
}

/**
 * The flexpane's record: trigger_ids issued for it (each works once, and only while fresh: Slack
 * gives no lifetime for these, so the fake takes the 3 s of every other trigger_id), each panel
 * the app filled (by trigger_id), and which entity's panel each user has open in their client.
 */
export class FakeWorkObjects {
  triggerTtlMs = 3_000;
  readonly triggers = new Map<string, EntityTrigger>();
  /** entity.presentDetails accepted, by trigger_id. */
  readonly panels = new Map<string, FakePanel>();
  /** The panel each user has open: the entity_details_requested trigger that opened it. */
  readonly open = new Map<string, { triggerId: string; trigger: EntityTrigger }>();

  issue(trigger: Omit<EntityTrigger, 'issuedAt' | 'used'>): string {
    const id = `${Date.now()}.${randomBytes(4).toString('hex')}.${randomBytes(16).toString('hex')}`;
    this.triggers.set(id, { ...trigger, issuedAt: Date.now(), used: false });
    return id;
  }

  /** The trigger, if it was issued for a flexpane, is unused and fresh; it is then used up. */
  take(triggerId: string): EntityTrigger | undefined {
    const trigger = this.triggers.get(triggerId);
    if (!trigger || trigger.used || Date.now() - trigger.issuedAt > this.triggerTtlMs) return undefined;
    trigger.used = true;
    return trigger;
  }

  /** A flexpane click's trigger used for views.open (Slack lets an app open a modal from one). */
  takeForModal(triggerId: string): { user: string; channel?: string | undefined } | undefined {
    const trigger = this.triggers.get(triggerId);
    if (trigger?.cause !== 'entity_action') return undefined;
    return this.take(triggerId);
  }

  /** The newest panel the app filled for what `user` has open. */
  panelOpenFor(
    user: string,
  ): { trigger: EntityTrigger; triggerId: string; panel: FakePanel | undefined } | undefined {
    const open = this.open.get(user);
    if (!open) return undefined;
    const panel = [...this.panels.values()]
      .filter(
        (p) =>
          p.user === user && p.externalRefId === open.trigger.externalRefId && p.at >= open.trigger.issuedAt,
      )
      .at(-1);
    return { ...open, panel };
  }
}
