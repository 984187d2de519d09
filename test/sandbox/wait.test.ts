import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { waitForEvent } from '../../sandbox/fake-slack/wait.js';

describe('waiting for an event', () => {
  it('resolves with what the check finds once the event comes', async () => {
    const emitter = new EventEmitter();
    let value: string | undefined;
    const waiting = waitForEvent(emitter, 'change', () => value, 1_000, 'a value');
    value = 'here';
    emitter.emit('change');
    await expect(waiting).resolves.toBe('here');
  });

  it('refuses a check that returns a promise (it would count as found at once, waiting for nothing)', async () => {
    const emitter = new EventEmitter();
    const check = async () => undefined;
    await expect(waitForEvent(emitter, 'change', check, 1_000, 'rows')).rejects.toThrow(
      /the check for rows returned a promise/,
    );
    expect(emitter.listenerCount('change')).toBe(0);
  });
});
