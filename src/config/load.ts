import { existsSync } from 'node:fs';
import type { z } from 'zod';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(
      `Order Desk cannot start: the configuration has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

/** Validates the environment against a schema; the error lists every problem by variable name. */
export function parseEnv<Schema extends z.ZodType>(
  schema: Schema,
  env: Record<string, string | undefined>,
): z.output<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  // One line per variable: its first problem (an empty signing secret is not also "required").
  const problems = new Map<string, string>();
  for (const issue of result.error.issues) {
    const variable = issue.path.length > 0 ? String(issue.path[0]) : 'environment';
    if (!problems.has(variable)) problems.set(variable, `${variable} ${issue.message}`);
  }
  throw new ConfigError([...problems.values()]);
}

/** Loads `.env` into process.env when the file exists; real environment variables win. */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}
