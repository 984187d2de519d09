import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../src/outbox/index.js';
import { wallClock } from '../helpers/clock.js';
import { postgresTests } from '../helpers/postgres-server.js';
import { redisTests } from '../helpers/redis-server.js';
import { type ReplicaSet, startReplicaSet } from '../helpers/replicas.js';
import { until } from '../helpers/until.js';

const CHANNELS = ['C0PACE1', 'C0PACE2', 'C0PACE3'];
const PER_SECOND = 20;
const EACH = 10;

// Issue 35, item 4: one pace per channel across replicas. Three replicas on one Redis and one
// PostgreSQL each decide posts for the same channels at the same moment: each enqueue wakes its
// replica's delivery job, so the three post side by side, each channel's turn on Redis keeping one
// pace, with the fake Slack enforcing its per-channel limit: no 429, every post once.
describe.skipIf(postgresTests.skip || redisTests.skip)('the pace of posts across replicas', () => {
  let set: ReplicaSet;
  beforeAll(async () => {
    set = await startReplicaSet({
      postgres: true,
      tuning: { channelPostsPerSecond: PER_SECOND },
      beforeStart(slack) {
        slack.postsPerSecondPerChannel = PER_SECOND;
        for (const id of CHANNELS) slack.channels.push({ id, name: id.toLowerCase() });
      },
    });
  }, 60_000);
  afterAll(() => set?.stop());

  it('replicas posting to the same channels together: no 429, each post once', async () => {
    const entriesOf = (replica: number): OutboxEntry[] =>
      CHANNELS.flatMap((target) =>
        Array.from({ length: EACH }, (_, i) => ({
          dedupeKey: `audit:pace:${replica}:${target}:${i}`,
          kind: 'audit' as const,
          target,
          body: { text: `replica ${replica} line ${i}` },
        })),
      );
    // Due now on the replicas' clock (the real one); each replica's delivery job woken by its enqueue,
    // and its ticks besides.
    await Promise.all(
      set.replicas.map(({ desk }, index) =>
        desk.deps.outbox.enqueue(entriesOf(index), new Date(wallClock())),
      ),
    );
    // What a replica found another posting is posted by that one, or by the next delivery round
    // (every second, on every replica).
    const total = set.replicas.length * CHANNELS.length * EACH;
    await until(
      'every post sent',
      async () => (await set.replicas[0]?.desk.deps.outbox.count('sent')) === total,
      30_000,
    );
    const posted = set.slack.messages.filter(
      (m) => CHANNELS.includes(m.channel) && m.via === 'chat.postMessage',
    );
    expect(posted).toHaveLength(total);
    expect(new Set(posted.map((m) => `${m.channel}|${m.text}`)).size).toBe(total);
    expect(set.slack.rateLimitedPosts).toBe(0);
  });
});
