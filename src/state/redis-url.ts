/** REDIS_URL as it may be shown: no user name, no password. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(REDIS_URL is not a URL)';
  }
}

/** Start-up could not reach Redis: the process says so in one line and exits. */
export class RedisStartupError extends Error {
  override readonly name = 'RedisStartupError';
}
