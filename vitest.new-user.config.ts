/** `npm run test:new-user`: only the README's new-user path (test/new-user-path.test.ts), which `npm test` leaves out. */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: { ...base.test, projects: undefined, include: ['test/new-user-path.test.ts'], exclude: [], coverage: { enabled: false } },
});
