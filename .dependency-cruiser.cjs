// `npm run lint` runs this: no import cycles, production code (src/) never reaches into the
// development tools (sandbox/), the tests or the benchmarks, and the layers of docs/architecture.md
// hold (test/lint-layers.test.ts breaks each rule once to show it is enforced). src/text/ holds pure
// text helpers any layer may use. Parsed with swc: TypeScript 7 has no JS API.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
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
      to: { path: '^src/(services|state|orders|db|outbox|app|flows|listeners|jobs)/' },
    },
    {
      name: 'order-copy-knows-no-slack',
      comment: 'The order copy knows no Slack and no CSV.',
      severity: 'error',
      from: { path: '^src/orders/' },
      to: { path: '^src/(blocks|finance|listeners|flows|app)/' },
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
      name: 'outbox-and-jobs-carry-what-they-are-given',
      comment: 'The outbox and the job helper know no flow, builder or listener.',
      severity: 'error',
      from: { path: '^src/(outbox|jobs)/' },
      to: { path: '^src/(flows|blocks|listeners)/' },
    },
    {
      name: 'slackbot-tools-are-a-trigger',
      comment:
        "Slackbot's tools (src/mcp/) are a trigger like a slash command: they call flows, blocks and services; only the composition root (app/) imports them.",
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
