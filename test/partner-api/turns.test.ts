import { describe, expect, it } from 'vitest';
import { createTurns } from '../../src/partner-api/turns.js';

/** Work that ends when the test says: its name goes to `started` when it starts. */
function scheduler(concurrency: number) {
  const turns = createTurns(concurrency);
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const submit = (requester: string, name: string) =>
    turns.run(requester, async () => {
      started.push(name);
      await new Promise<void>((resolve) => finishers.set(name, resolve));
      return name;
    });
  /** Ends the named work and waits until whatever it lets start has started. */
  const finish = async (name: string) => {
    finishers.get(name)?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { turns, started, submit, finish };
}

describe('turns between requesters at the partner', () => {
  it('starts at most `concurrency` at once; the next starts when one ends, and each gets its answer', async () => {
    const { turns, started, submit, finish } = scheduler(2);
    const answers = ['a1', 'a2', 'a3'].map((name) => submit('A', name));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual(['a1', 'a2']);
    expect({ active: turns.active, waiting: turns.waiting }).toEqual({ active: 2, waiting: 1 });
    await finish('a1');
    expect(started).toEqual(['a1', 'a2', 'a3']);
    await finish('a2');
    await finish('a3');
    expect(await Promise.all(answers)).toEqual(['a1', 'a2', 'a3']);
    expect({ active: turns.active, waiting: turns.waiting }).toEqual({ active: 0, waiting: 0 });
  });

  it("a requester with one waits for at most one of each other's, however many those have queued", async () => {
    const { started, submit, finish } = scheduler(1);
    for (const name of ['a1', 'a2', 'a3', 'a4']) void submit('A', name);
    void submit('B', 'b1');
    void submit('C', 'c1');
    await new Promise((resolve) => setImmediate(resolve));
    for (const name of ['a1', 'b1', 'c1', 'a2']) await finish(name);
    // B and C had no turn yet when a1 ended: both go before A's second.
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'a3']);
  });

  it('someone who has not had a turn lately starts at the next free slot, before the backlog of others', async () => {
    const { started, submit, finish } = scheduler(1);
    for (const name of ['a1', 'a2', 'a3', 'a4']) void submit('A', name);
    for (const name of ['b1', 'b2', 'b3', 'b4']) void submit('B', name);
    await new Promise((resolve) => setImmediate(resolve));
    for (const name of ['a1', 'b1']) await finish(name);
    // A and B have had turns; S asks once: S goes next, not behind a round of A's and B's.
    void submit('S', 's1');
    for (const name of ['a2', 's1', 'b2', 'a3', 'b3', 'a4']) await finish(name);
    expect(started).toEqual(['a1', 'b1', 'a2', 's1', 'b2', 'a3', 'b3', 'a4', 'b4']);
  });

  it('whoever has work queued waits for at most one turn of each requester who had none since theirs', async () => {
    const { started, submit, finish } = scheduler(1);
    void submit('B', 'b1');
    void submit('A', 'a1');
    void submit('A', 'a2');
    void submit('X', 'x1');
    await new Promise((resolve) => setImmediate(resolve));
    await finish('b1');
    // Y is new, and X asks again while x1 still waits: X's second comes after A's second.
    void submit('Y', 'y1');
    void submit('X', 'x2');
    for (const name of ['a1', 'x1', 'y1', 'a2']) await finish(name);
    expect(started).toEqual(['b1', 'a1', 'x1', 'y1', 'a2', 'x2']);
  });

  it('is not starved by others who keep asking: each goes before it at most once', async () => {
    const { started, submit, finish } = scheduler(1);
    void submit('A', 'a1');
    void submit('A', 'a2');
    for (const person of ['X', 'Y', 'Z']) void submit(person, `${person.toLowerCase()}1`);
    await new Promise((resolve) => setImmediate(resolve));
    // Each of X, Y and Z asks again as soon as their request ends.
    for (const name of ['a1', 'x1', 'y1', 'z1']) {
      if (name !== 'a1') void submit(name[0]?.toUpperCase() ?? '', `${name[0]}2`);
      await finish(name);
    }
    expect(started).toEqual(['a1', 'x1', 'y1', 'z1', 'a2']);
  });

  it('work whose signal ends while it waits leaves its queue: it never starts, the next one does', async () => {
    const { turns, started, submit, finish } = scheduler(1);
    void submit('A', 'a1');
    const stop = new AbortController();
    const waiting = turns.run('B', async () => 'b1', stop.signal);
    void submit('C', 'c1');
    expect(turns.waiting).toBe(2);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(turns.waiting).toBe(1);
    await finish('a1');
    expect(started).toEqual(['a1', 'c1']);
    // Once under way, a signal is the work's own business: the turn does not take it back.
    const late = new AbortController();
    let endD: (value: string) => void = () => undefined;
    const running = turns.run('D', () => new Promise<string>((resolve) => (endD = resolve)), late.signal);
    await finish('c1');
    expect(turns.active).toBe(1);
    late.abort();
    endD('d1');
    await expect(running).resolves.toBe('d1');
    // A signal that has ended already: refused at once, nothing queued.
    await expect(turns.run('E', async () => 'e1', late.signal)).rejects.toBeDefined();
    expect({ active: turns.active, waiting: turns.waiting }).toEqual({ active: 0, waiting: 0 });
  });

  it('refuses a concurrency that could never start anything', () => {
    expect(() => createTurns(0)).toThrow(RangeError);
    expect(() => createTurns(1.5)).toThrow(RangeError);
  });

  it('a failure is the caller’s alone: the next one starts, and the failing work may throw at once', async () => {
    const turns = createTurns(1);
    const failing = turns.run('A', () => {
      throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    await expect(turns.run('B', async () => 'next')).resolves.toBe('next');
    expect(turns.active).toBe(0);
  });
});
