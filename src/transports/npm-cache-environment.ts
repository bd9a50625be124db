/**
 * The npm settings a stdio server started with `npx` needs to find what is already downloaded.
 * The SDK's default environment (HOME, LOGNAME, PATH, SHELL, TERM, USER) keeps ~/.npmrc working,
 * but a cache chosen in the environment (`npm_config_cache`, as CI and containers set it) was
 * dropped: the first `npx -y some-server` then downloaded the package again into ~/.npm, often for
 * longer than the connect timeout. Passed on by name, never by prefix: `npm_config_*` also carries
 * credentials (`npm_config__auth`, `npm_config_//registry.npmjs.org/:_authToken`), which a server
 * must never be handed unless its entry's `env` says so. A cache folder and an offline preference
 * are no secret.
 */
const PASSED_ON = ['npm_config_cache', 'npm_config_prefer_offline'] as const;

/**
 * The named npm settings of this process's environment, in either case npm reads them in
 * (`npm_config_cache`, `NPM_CONFIG_CACHE`), but for those the entry's `env` sets in any case: npm
 * reads every spelling and keeps the last, so an inherited `NPM_CONFIG_CACHE` beside the entry's
 * `npm_config_cache` would override what the entry says.
 */
export function npmCacheEnvironment(entryEnv: Readonly<Record<string, string>> = {}): Record<string, string> {
  const setByEntry = new Set(Object.keys(entryEnv).map((name) => name.toLowerCase()));
  const passed: Record<string, string> = {};
  for (const name of PASSED_ON) {
    if (setByEntry.has(name)) continue;
    for (const spelled of [name, name.toUpperCase()]) {
      const value = process.env[spelled];
      if (value !== undefined) passed[spelled] = value;
    }
  }
  return passed;
}
