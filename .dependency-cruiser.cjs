// `npm run lint` runs this: no import cycles, production code (src/) never reaches into the
// development tools (sandbox/), the tests or the benchmarks, and the layers of docs/architecture.md
// hold: arrows run downwards only (test/lint-layers.test.ts breaks each rule once to show it is
// enforced). Parsed with swc: TypeScript 7 has no JS API.

/**
 * The tiers of src/, top to bottom (docs/architecture.md, "Layers"). A folder may import its own
 * tier and those below; never one above. Type-only imports count: a type is a dependency too.
 */
const TIERS = [
  /* the composition root: builds and wires everything; only main.ts imports it */ ['app'],
  /* triggers: one file per Slack trigger, Slackbot's tools */ ['listeners', 'mcp'],
  /* what one interaction or one job's round does, step by step */ ['flows'],
  /* features: their rules, stores and jobs; builders are pure, the rest may render with them */
  ['access', 'blocks', 'finance', 'notifications', 'orders', 'reveal'],
  /* what carries and keeps: the partner client, Slack delivery, the outbox, jobs, state, database */
  ['db', 'jobs', 'observability', 'outbox', 'partner-api', 'slack', 'state'],
  /* the settings, read and checked once */ ['config'],
];
// Leaves any tier may use, importing no folder of the app: text helpers, the deadline race, the
// logger, the bounded body reader.
const folders = (tiers) => `^src/(${tiers.flat().join('|')})/`;
const arrowsRunDownwards = TIERS.slice(1).map((tier, index) => ({
  name: 'arrows-run-downwards',
  comment: `${tier.join(', ')} may not import a tier above: ${TIERS.slice(0, index + 1)
    .flat()
    .join(', ')}.`,
  severity: 'error',
  from: { path: folders([tier]) },
  to: { path: folders(TIERS.slice(0, index + 1)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    ...arrowsRunDownwards,
    {
      name: 'leaves-import-no-folder',
      comment: 'src/text/ and the files at the root of src/ (but main.ts) import no folder of the app.',
      severity: 'error',
      from: { path: '^src/(text/|[^/]+\\.ts$)', pathNot: '^src/main\\.ts$' },
      to: { path: folders(TIERS) },
    },
    {
      name: 'production-stays-in-src',
      comment: 'src/ is what runs in production: it imports nothing from sandbox/, test/ or bench/.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(sandbox|test|bench)/' },
    },
    // The layers of docs/architecture.md: arrows run downwards only.
    {
      name: 'blocks-are-pure',
      comment: 'Block Kit builders take data and return blocks: no store, no client, no service.',
      severity: 'error',
      from: { path: '^src/blocks/' },
      to: { path: '^src/(access|db|jobs|observability|orders|outbox|slack|state)/' },
    },
    {
      name: 'order-copy-knows-no-slack',
      comment: 'The order copy knows no Slack and no CSV.',
      severity: 'error',
      from: { path: '^src/orders/' },
      to: { path: '^src/(blocks|finance)/' },
    },
    {
      name: 'db-imports-only-itself',
      comment: 'A migration freezes what it needs: the database layer imports no application code.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: ['^src/db/', '^src/text/', '^src/logger\\.ts$'] },
    },
    {
      name: 'partner-client-imports-no-app',
      comment: 'The partner client knows no Slack, no store, no copy.',
      severity: 'error',
      from: { path: '^src/partner-api/' },
      // src/deadline.ts is a leaf like src/text/: racing a wait against a deadline or an abort.
      to: { path: '^src/', pathNot: ['^src/partner-api/', '^src/text/', '^src/deadline\\.ts$'] },
    },
    {
      name: 'slackbot-tools-are-a-trigger',
      comment:
        "Slackbot's tools (src/mcp/) are a trigger like a slash command: they call flows and features; only the composition root (app/) imports them, not the listeners beside them.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(app|mcp)/'] },
      to: { path: '^src/mcp/' },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^sandbox/public/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
