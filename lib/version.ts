// Slipway's version: what the processes and `kubectl slipway version` report, and what the
// operator records on each Project it looks at (status.operatorVersion). It is package.json's
// version and the chart's appVersion (test/unit/lib/version.test.ts keeps the three in step).
export const SLIPWAY_VERSION = '0.1.0';
