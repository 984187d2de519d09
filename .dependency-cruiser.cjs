// `npm run lint` runs this: no import cycles, and production code (src/) never reaches into the
// development tools (sandbox/), the tests or the benchmarks. Parsed with swc: TypeScript 7 has no JS API.
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
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^sandbox/public/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
