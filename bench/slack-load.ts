import { Agent, request } from 'node:http';
import type { FakeSlack } from '../sandbox/fake-slack/server.js';
import { signedHeaders } from '../sandbox/fake-slack/signing.js';

export interface CommandTiming {
  sentAt: number;
  ackMs: number;
  status: number;
  responseUrlId: string;
}

/**
 * Sends `count` signed /order commands (or `command`) to `appUrl`, at most `concurrency` at a time, each with its
 * own response_url on the fake Slack. Returns one timing per command.
 */
export async function sendCommands(options: {
  slack: FakeSlack;
  appUrl: string;
  signingSecret: string;
  count: number;
  concurrency: number;
  text: (index: number) => string;
  /** The slash command (default `/order`). */
  command?: string;
  /** Closed loop: each worker waits for a command's answer before sending its next one. */
  awaitAnswer?: boolean;
  /**
   * The connections to use (default: one keep-alive pool for the whole run). A caller that pauses
   * longer than the app's keep-alive timeout (5 s) between runs passes a fresh agent per run: a
   * socket the app closed while idle would otherwise be reused and hang up.
   */
  agent?: Agent;
  /** Who sends each worker's commands (default: U0BENCH for all). */
  user?: (worker: number) => string;
}): Promise<{ timings: CommandTiming[]; wallMs: number }> {
  const { slack, appUrl, signingSecret, count, concurrency } = options;
  const timings: CommandTiming[] = new Array(count);
  let next = 0;
  // Closed loop: the response_url posts read once each, whichever worker looks (a scan of every post
  // per check would cost the generator more than the app it measures).
  const answered = new Set<string>();
  let scanned = slack.responsePosts.length;
  const isAnswered = (id: string) => {
    for (; scanned < slack.responsePosts.length; scanned++)
      answered.add((slack.responsePosts[scanned] as { responseUrlId: string }).responseUrlId);
    return answered.has(id);
  };
  const started = performance.now();
  async function worker(_: unknown, worker: number) {
    const user = options.user?.(worker) ?? 'U0BENCH';
    while (next < count) {
      const index = next++;
      const responseUrlId = slack.createResponseUrl({ channel: 'C0BENCH', user });
      const body = new URLSearchParams({
        token: 'x',
        team_id: 'T0SANDBOX',
        channel_id: 'C0BENCH',
        user_id: user,
        user_name: user.toLowerCase(),
        command: options.command ?? '/order',
        text: options.text(index),
        api_app_id: 'A0ORDERDESK',
        response_url: `${slack.url}/response/${responseUrlId}`,
        trigger_id: `t.${index}`,
      }).toString();
      const sentAt = performance.now();
      const status = await post(
        options.agent ?? agent,
        `${appUrl}/slack/events`,
        signedHeaders(signingSecret, body, 'application/x-www-form-urlencoded'),
        body,
      );
      timings[index] = { sentAt, ackMs: performance.now() - sentAt, status, responseUrlId };
      if (options.awaitAnswer) await slack.waitFor(() => isAnswered(responseUrlId), 30_000);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { timings, wallMs: performance.now() - started };
}

// node:http with a keep-alive agent costs the load generator less per request than fetch, so the
// generator is less likely to be what limits the measured throughput.
const agent = new Agent({ keepAlive: true, maxSockets: 1_000 });

function post(agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits (event-driven) until every command has its first response_url post, or the deadline. */
export async function waitForAnswers(
  slack: FakeSlack,
  timings: readonly CommandTiming[],
  timeoutMs: number,
): Promise<Map<string, number>> {
  const wanted = new Set(timings.map((t) => t.responseUrlId));
  const firstPost = new Map<string, number>();
  let scanned = 0;
  const collect = () => {
    for (; scanned < slack.responsePosts.length; scanned++) {
      const post = slack.responsePosts[scanned];
      if (post && wanted.has(post.responseUrlId) && !firstPost.has(post.responseUrlId))
        firstPost.set(post.responseUrlId, post.receivedAt);
    }
    return firstPost.size >= wanted.size ? firstPost : undefined;
  };
  try {
    return await slack.waitFor(collect, timeoutMs);
  } catch {
    return firstPost;
  }
}

/**
 * Answer times, one command at a time: `warmUp` commands (50), then `count` measured ones, each from
 * sending the command to its first response_url post.
 */
export async function measureAnswerTimes(
  options: Omit<Parameters<typeof sendCommands>[0], 'count' | 'concurrency' | 'awaitAnswer'>,
  count = 200,
  warmUp = 50,
): Promise<number[]> {
  const closedLoop = { ...options, concurrency: 1, awaitAnswer: true };
  if (warmUp > 0) await sendCommands({ ...closedLoop, count: warmUp });
  const run = await sendCommands({ ...closedLoop, count });
  const posts = await waitForAnswers(options.slack, run.timings, 60_000);
  return run.timings
    .map((t) => (posts.get(t.responseUrlId) ?? Number.NaN) - t.sentAt)
    .filter(Number.isFinite);
}
