import type { FakeSlack } from '../../sandbox/fake-slack/server.js';

// Every key the simulator hands out has one of these shapes, so a leak is found by shape, whatever
// order it came from: cheaper than listing every key, and it also catches keys of orders a test added.
const KEY_SHAPES = [
  /[A-Z0-9]{5}(?:-[A-Z0-9]{5}){4}/,
  /redeem\.example\.com\/r\/[a-z0-9]+/,
  // Image keys, as raw base64 or in a data: URI: PNG, GIF and the simulator's JPEG sample.
  /iVBORw0KGgo[A-Za-z0-9+/]{16,}/,
  /R0lGODlh[A-Za-z0-9+/]{16,}/,
  /\/9j\/4AAQSkZJRg[A-Za-z0-9+/]{16,}/,
];

export function findKeyShape(text: string): string | undefined {
  for (const shape of KEY_SHAPES) {
    const match = shape.exec(text);
    if (match) return match[0];
  }
  return undefined;
}

// A one-time reveal link for an image key (src/reveal/links.ts: `${PUBLIC_URL}/keys/reveal#<token>`):
// only ever in an ephemeral reply to the person it was minted for.
const REVEAL_LINK = /\/keys\/reveal#[A-Za-z0-9_.~-]+/;

export function findRevealLink(text: string): string | undefined {
  return REVEAL_LINK.exec(text)?.[0];
}

/** Web API methods whose payload is a Work Object: everyone in the conversation, or the panel, sees it. */
const WORK_OBJECT_METHODS = new Set(['chat.unfurl', 'entity.presentDetails']);

/**
 * Secret hygiene, checked at the end of every test file that runs the app: no key value or API key
 * in any log line, in-channel message, Home view, Web API call (Work Object metadata and panels
 * included) or notification text, and no reveal link in a Work Object or an in-channel message. Keys
 * may only be in the blocks of ephemeral response_url replies.
 */
export function secretLeaks(slack: FakeSlack, logs: readonly string[], secrets: readonly string[]): string[] {
  const problems: string[] = [];
  const check = (where: string, text: string) => {
    const key = findKeyShape(text);
    if (key) problems.push(`${where}: a key value`);
    for (const secret of secrets) if (text.includes(secret)) problems.push(`${where}: a secret`);
  };
  for (const [index, line] of logs.entries()) check(`log line ${index + 1}`, line);
  for (const message of slack.messages) {
    if (message.visibleTo === undefined) check(`in-channel message ${message.id}`, JSON.stringify(message));
    check(`notification text of ${message.id}`, message.text);
  }
  for (const [user, view] of slack.views) check(`Home view of ${user}`, JSON.stringify(view));
  for (const call of slack.calls) {
    check(`Web API call ${call.method}`, JSON.stringify(call.args));
    // Work Objects (unfurl and card metadata, the details panel): never a reveal link either.
    const workObject = WORK_OBJECT_METHODS.has(call.method) ? call.args : call.args.metadata;
    if (workObject !== undefined && findRevealLink(JSON.stringify(workObject)))
      problems.push(`Work Object of ${call.method}: a reveal link`);
  }
  for (const message of slack.messages)
    if (message.visibleTo === undefined && findRevealLink(JSON.stringify(message)))
      problems.push(`in-channel message ${message.id}: a reveal link`);
  for (const post of slack.responsePosts) {
    check('response_url notification text', String(post.body.text ?? ''));
    if (post.body.response_type === 'in_channel')
      check('in-channel response_url post', JSON.stringify(post.body));
    for (const secret of secrets)
      if (JSON.stringify(post.body).includes(secret)) problems.push('response_url post: a secret');
  }
  return problems;
}
