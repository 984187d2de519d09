import type { ListenerDeps } from './listener-deps.js';

type Surface = 'command' | 'action' | 'event' | 'function';

/**
 * Times a listener for the metrics: the ack (what Slack waits 3 s for) and the whole answer, and
 * counts it with its outcome. `work` returns the outcome; a throw counts as "error" and propagates.
 */
export async function instrumented(
  deps: Pick<ListenerDeps, 'metrics'>,
  surface: Surface,
  count: (outcome: string) => void,
  ack: () => Promise<void>,
  work: () => Promise<string>,
): Promise<void> {
  const startedAt = performance.now();
  await ack();
  deps.metrics.ackSeconds.observe({ surface }, (performance.now() - startedAt) / 1000);
  let outcome = 'error';
  try {
    outcome = await work();
  } finally {
    count(outcome);
    deps.metrics.answerSeconds.observe({ surface }, (performance.now() - startedAt) / 1000);
  }
}
