/**
 * `npm run test:reliability`: crashes, faults, fuzzing and load against the real stack. Slower than
 * the unit and API tests, so kept out of `npm test`; CI runs it after them.
 */
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  roots: ['<rootDir>/test/reliability'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 300_000,
  // Scenarios kill and restart shared processes (Temporal, PostgreSQL): one file at a time.
  maxWorkers: 1,
};
