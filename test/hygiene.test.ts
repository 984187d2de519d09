import { describe, expect, it } from 'vitest';
import { FakeSlack } from '../sandbox/fake-slack/server.js';
import { findKeyShape, secretLeaks } from './helpers/hygiene.js';

// The suite-wide hygiene check must itself be able to fail.
describe('the secret hygiene check', () => {
  it.each([
    'ABCDE-12345-FGHIJ-67890-KLMNO',
    'redeem.example.com/r/abc123',
    'iVBORw0KGgoAAAANSUhEUgAAAhwAAAAl',
    'R0lGODlhHAIlAIEAAP///yIiIgAAAAAA',
    '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBD',
  ])('recognises the key %s', (key) => {
    expect(findKeyShape(`before ${key} after`)).toBe(key);
  });

  it('reports a key in a log line, an in-channel message, a view and a notification text, and a secret anywhere', () => {
    const slack = new FakeSlack({ botToken: 'xoxb-1', signingSecret: 's' });
    slack.messages.push({
      id: 'M1',
      ts: '1',
      channel: 'C1',
      text: 'ok',
      blocks: [{ text: 'ABCDE-12345-FGHIJ-67890-KLMNO' }],
      via: 'response_url',
      author: 'U1',
      deleted: false,
      replacedCount: 0,
    });
    slack.messages.push({
      id: 'M2',
      ts: '2',
      channel: 'C1',
      visibleTo: 'U1',
      text: 'Keys: ABCDE-12345-FGHIJ-67890-KLMNO',
      blocks: [],
      via: 'response_url',
      author: 'U1',
      deleted: false,
      replacedCount: 0,
    });
    slack.views.set('U1', { blocks: ['https://redeem.example.com/r/x1'] });
    const problems = secretLeaks(slack, ['{"msg":"api key sim-key-123456"}'], ['sim-key-123456']);
    expect(problems).toEqual([
      'log line 1: a secret',
      'in-channel message M1: a key value',
      'notification text of M2: a key value',
      'Home view of U1: a key value',
    ]);
  });

  it('reports a reveal link in a Work Object (unfurl, card metadata, panel) or an in-channel message', () => {
    const slack = new FakeSlack({ botToken: 'xoxb-1', signingSecret: 's' });
    const link = 'https://desk.test/keys/reveal#eyJvIjoiQTEifQ.c2ln';
    const call = (method: string, args: Record<string, unknown>) =>
      slack.calls.push({ method, args, status: 200, ok: true, at: 0 });
    call('chat.unfurl', { metadata: JSON.stringify({ entities: [{ url: link }] }) });
    call('entity.presentDetails', { metadata: { entity_payload: { custom_fields: [{ value: link }] } } });
    call('chat.postMessage', { text: 'card', metadata: { entities: [{ url: link }] } });
    // An ephemeral keys reply is where reveal links belong.
    call('chat.postEphemeral', { text: 'keys', blocks: [{ url: link }] });
    slack.messages.push({
      id: 'M1',
      ts: '1',
      channel: 'C1',
      text: 'shared',
      blocks: [{ url: link }],
      via: 'chat.postMessage',
      author: 'B1',
      deleted: false,
      replacedCount: 0,
    });
    expect(secretLeaks(slack, [], [])).toEqual([
      'Work Object of chat.unfurl: a reveal link',
      'Work Object of entity.presentDetails: a reveal link',
      'Work Object of chat.postMessage: a reveal link',
      'in-channel message M1: a reveal link',
    ]);
  });

  it('allows keys in the blocks of an ephemeral reply', () => {
    const slack = new FakeSlack({ botToken: 'xoxb-1', signingSecret: 's' });
    slack.messages.push({
      id: 'M1',
      ts: '1',
      channel: 'C1',
      visibleTo: 'U1',
      text: 'Keys for order X: 1 key',
      blocks: [{ text: 'ABCDE-12345-FGHIJ-67890-KLMNO' }],
      via: 'response_url',
      author: 'U1',
      deleted: false,
      replacedCount: 0,
    });
    expect(secretLeaks(slack, [], [])).toEqual([]);
  });
});
