import { messageRefusal } from './block-kit.js';
import { type RouteAnswer, textAnswer } from './http.js';
import type { SlackState } from './state.js';

// POST /response/{id}: the response_url Slack puts in each command and click. As in Slack, one URL
// takes a few posts for a limited time; a post replies to the user who acted (ephemeral by default,
// in_channel on request), or replaces or deletes the message whose button was clicked.

/** A fault on every response_url, for the next `count` posts. */
export interface ResponseUrlFault {
  status: number;
  count: number;
}

/** Answers a post to a response_url and records it in `responsePosts`, refused or not. */
export function answerResponseUrl(
  slack: SlackState,
  id: string,
  raw: string,
  fault: ResponseUrlFault | undefined,
): RouteAnswer {
  const target = slack.responseTarget(id);
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    // recorded as sent; answered 400 below
  }
  const finish = (status: number, text: string): RouteAnswer => {
    slack.responsePosts.push({
      responseUrlId: id,
      body,
      status,
      at: Date.now(),
      receivedAt: performance.now(),
      user: target?.user ?? '',
      channel: target?.channel ?? '',
    });
    return textAnswer(status, text);
  };
  if (fault && fault.count > 0) {
    fault.count--;
    return finish(fault.status, 'simulated_failure');
  }
  const limit = slack.options.responseUrlLimit ?? 5;
  const ttl = slack.options.responseUrlTtlMs ?? 30 * 60_000;
  if (!target || Date.now() - target.createdAt > ttl) return finish(404, 'expired_url');
  if (target.posts >= limit) return finish(404, 'used_url');
  if (Object.keys(body).length === 0) return finish(400, 'invalid_payload');
  // Over a Block Kit limit: refused, as Slack does, and the post is not counted.
  const refused = messageRefusal(body.text, body.blocks, slack.refusesDataBlocks('messages'));
  if (refused) return finish(400, refused.error);
  target.posts++;
  const original = target.originalMessageId ? slack.findMessage(target.originalMessageId) : undefined;
  if (body.delete_original === true) {
    if (original) original.deleted = true;
    return finish(200, 'ok');
  }
  const blocks = Array.isArray(body.blocks) ? body.blocks : [];
  const text = typeof body.text === 'string' ? body.text : '';
  // As in Slack, replace_original edits the message a button sat in; a command's own response_url has none.
  if (body.replace_original === true && original && !original.deleted) {
    original.text = text;
    original.blocks = blocks;
    original.replacedCount++;
    return finish(200, 'ok');
  }
  const inChannel = body.response_type === 'in_channel';
  slack.addMessage({
    channel: target.channel,
    visibleTo: inChannel ? undefined : target.user,
    text,
    blocks,
    via: 'response_url',
    author: target.user,
  });
  return finish(200, 'ok');
}
