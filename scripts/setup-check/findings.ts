// What `npm run check` found, one line each: ok (nothing to do), decide (a setting the operator should
// choose on purpose; it does not fail the check), fix (Order Desk will not work as configured) and skip
// (a check that could not run because one it depends on failed: said, so that nothing vanishes).

export type Verdict = 'ok' | 'decide' | 'fix' | 'skip';

export interface Finding {
  verdict: Verdict;
  text: string;
}

export const ok = (text: string): Finding => ({ verdict: 'ok', text });
export const decide = (text: string): Finding => ({ verdict: 'decide', text });
export const fix = (text: string): Finding => ({ verdict: 'fix', text });
/** A check that did not run: `what` it would have checked, `why` not (the failure it depends on). */
export const notChecked = (what: string, why: string): Finding => ({
  verdict: 'skip',
  text: `Not checked: ${what}, ${why}. Run the check again once that is fixed.`,
});

/** One line per finding, the verdict first and padded so the sentences line up. */
export function formatFinding(finding: Finding): string {
  return `${finding.verdict.padEnd(6)}  ${finding.text}`;
}

export function summaryLine(findings: readonly Finding[]): string {
  const count = (verdict: Verdict) => findings.filter((finding) => finding.verdict === verdict).length;
  const toFix = count('fix');
  const toDecide = count('decide');
  const skipped = count('skip');
  const head = toFix === 0 ? 'Nothing to fix' : `${toFix} to fix`;
  const unchecked = skipped === 0 ? '' : `, ${skipped} not checked`;
  return `${head}, ${toDecide} to decide${unchecked}. The check changed nothing in Slack or at the partner.`;
}

/** 1 when anything must be fixed; decide items alone do not fail the check. */
export function exitCodeOf(findings: readonly Finding[]): number {
  return findings.some((finding) => finding.verdict === 'fix') ? 1 : 0;
}

/** Replaces each secret value in a text (an error message from a library) before it is printed. */
export function withoutSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let scrubbed = text.replace(/xox[a-z]-[\w-]+|xapp-[\w-]+/g, '[redacted]');
  for (const secret of secrets) if (secret) scrubbed = scrubbed.split(secret).join('[redacted]');
  return scrubbed;
}
