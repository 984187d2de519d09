/** Parses Prometheus text format into `name{label="v",…}` → value (labels sorted by name). */
export function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!match) throw new Error(`not Prometheus text: ${line}`);
    const labels = [...(match[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, name, value]) => `${name}="${value}"`)
      .sort()
      .join(',');
    samples.set(labels ? `${match[1]}{${labels}}` : (match[1] as string), Number(match[4]));
  }
  return samples;
}

export async function scrape(appUrl: string): Promise<Map<string, number>> {
  const response = await fetch(`${appUrl}/metrics`);
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
  return parsePrometheus(await response.text());
}
