/** A URL setting (DATABASE_URL, REDIS_URL) as it may be shown: no user name, no password, no query. */
export function describeUrl(url: string, setting: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname === '/' ? '' : parsed.pathname;
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${path}`;
  } catch {
    return `(${setting} is not a URL)`;
  }
}
