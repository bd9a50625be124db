/**
 * The published MCP servers the catalogue is captured from: npm package, how to start it, and
 * the placeholder values of the credentials it wants before it lists its tools (none is a real
 * key; a server that would need one to list its tools is skipped). `{home}` is the server's own
 * temporary folder. Without `version` the latest is taken.
 */
export interface CatalogueSource {
  name: string;
  package: string;
  version?: string;
  /** The bin to run when the package has several. */
  bin?: string;
  args?: string[];
  env?: Record<string, string>;
}

const KEY = 'placeholder-not-a-key';

export const CATALOGUE_SOURCES: CatalogueSource[] = [
  // The reference servers, current and archived.
  { name: 'everything', package: '@modelcontextprotocol/server-everything', args: ['stdio'] },
  { name: 'memory', package: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: '{home}/memory.jsonl' } },
  { name: 'filesystem', package: '@modelcontextprotocol/server-filesystem', args: ['{home}'] },
  { name: 'sequential-thinking', package: '@modelcontextprotocol/server-sequential-thinking' },
  { name: 'github', package: '@modelcontextprotocol/server-github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: KEY } },
  { name: 'gitlab', package: '@modelcontextprotocol/server-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: KEY, GITLAB_API_URL: 'http://127.0.0.1:9/api/v4' } },
  { name: 'slack', package: '@modelcontextprotocol/server-slack', env: { SLACK_BOT_TOKEN: KEY, SLACK_TEAM_ID: 'T00000000' } },
  { name: 'postgres', package: '@modelcontextprotocol/server-postgres', args: ['postgresql://127.0.0.1:9/placeholder'] },
  { name: 'puppeteer', package: '@modelcontextprotocol/server-puppeteer' },
  { name: 'google-maps', package: '@modelcontextprotocol/server-google-maps', env: { GOOGLE_MAPS_API_KEY: KEY } },
  { name: 'brave-search', package: '@modelcontextprotocol/server-brave-search', env: { BRAVE_API_KEY: KEY } },
  { name: 'redis', package: '@modelcontextprotocol/server-redis', args: ['redis://127.0.0.1:9'] },
  { name: 'gdrive', package: '@modelcontextprotocol/server-gdrive', env: { GDRIVE_CREDENTIALS_PATH: '{home}/credentials.json' } },
  { name: 'aws-kb-retrieval', package: '@modelcontextprotocol/server-aws-kb-retrieval', env: { AWS_ACCESS_KEY_ID: KEY, AWS_SECRET_ACCESS_KEY: KEY, AWS_REGION: 'us-east-1' } },
  { name: 'everart', package: '@modelcontextprotocol/server-everart', env: { EVERART_API_KEY: KEY } },
  { name: 'pdf', package: '@modelcontextprotocol/server-pdf', args: ['--stdio'] },
  // Vendors' and others' servers.
  { name: 'notion', package: '@notionhq/notion-mcp-server', env: { NOTION_TOKEN: KEY } },
  { name: 'playwright', package: '@playwright/mcp' },
  { name: 'context7', package: '@upstash/context7-mcp' },
  { name: 'stripe', package: '@stripe/mcp', args: ['--tools=all', '--api-key=sk_test_placeholder'] },
  { name: 'firecrawl', package: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: KEY } },
  { name: 'tavily', package: 'tavily-mcp', env: { TAVILY_API_KEY: KEY } },
  { name: 'exa', package: 'exa-mcp-server', env: { EXA_API_KEY: KEY } },
  { name: 'desktop-commander', package: '@wonderwhy-er/desktop-commander' },
  { name: 'airtable', package: 'airtable-mcp-server', env: { AIRTABLE_API_KEY: KEY } },
  { name: 'hubspot', package: '@hubspot/mcp-server', env: { PRIVATE_APP_ACCESS_TOKEN: KEY } },
  { name: 'shopify-dev', package: '@shopify/dev-mcp' },
  { name: 'line', package: '@line/line-bot-mcp-server', env: { CHANNEL_ACCESS_TOKEN: KEY, DESTINATION_USER_ID: 'U0000' } },
  { name: 'mapbox', package: '@mapbox/mcp-server', env: { MAPBOX_ACCESS_TOKEN: 'pk.placeholder' } },
  { name: 'elasticsearch', package: '@elastic/mcp-server-elasticsearch', env: { ES_URL: 'http://127.0.0.1:9', ES_API_KEY: KEY } },
  { name: 'neon', package: '@neondatabase/mcp-server-neon', args: ['start', KEY] },
  { name: 'sentry', package: '@sentry/mcp-server', args: [`--access-token=${KEY}`] },
  { name: 'figma', package: 'figma-developer-mcp', args: [`--figma-api-key=${KEY}`, '--stdio'] },
  { name: 'git', package: '@cyanheads/git-mcp-server' },
  { name: 'mongodb', package: 'mongodb-mcp-server', env: { MDB_MCP_TELEMETRY: 'disabled' } },
  { name: 'circleci', package: '@circleci/mcp-server-circleci', env: { CIRCLECI_TOKEN: KEY } },
  { name: 'railway', package: '@railway/mcp-server' },
  { name: 'netlify', package: '@netlify/mcp' },
  { name: 'apify', package: '@apify/actors-mcp-server', env: { APIFY_TOKEN: KEY } },
  { name: 'perplexity', package: '@perplexity-ai/mcp-server', env: { PERPLEXITY_API_KEY: KEY } },
  { name: 'heroku', package: '@heroku/mcp-server', env: { HEROKU_API_KEY: KEY } },
  { name: 'airbnb', package: '@openbnb/mcp-server-airbnb' },
  { name: 'pinecone', package: '@pinecone-database/mcp', env: { PINECONE_API_KEY: KEY } },
  { name: 'supabase', package: '@supabase/mcp-server-supabase', args: [`--access-token=${KEY}`] },
  { name: 'youtube-transcript', package: '@kimtaeyoon83/mcp-server-youtube-transcript' },
  { name: 'playwright-ea', package: '@executeautomation/playwright-mcp-server' },
  { name: 'lara-translate', package: '@translated/lara-mcp', env: { LARA_ACCESS_KEY_ID: KEY, LARA_ACCESS_KEY_SECRET: KEY } },
  { name: 'dynatrace', package: '@dynatrace-oss/dynatrace-mcp-server', env: { DT_ENVIRONMENT: 'https://placeholder.apps.dynatrace.com' } },
  { name: 'linear', package: '@tacticlaunch/mcp-linear', env: { LINEAR_API_TOKEN: KEY } },
  { name: 'fetch', package: '@kazuph/mcp-fetch' },
  { name: 'kubernetes', package: 'mcp-server-kubernetes' },
  { name: 'azure-devops', package: '@azure-devops/mcp', args: ['placeholder-org'] },
  { name: 'jira', package: '@aashari/mcp-server-atlassian-jira', env: { ATLASSIAN_SITE_NAME: 'placeholder', ATLASSIAN_USER_EMAIL: 'user@example.com', ATLASSIAN_API_TOKEN: KEY } },
  { name: 'gitlab-community', package: '@zereight/mcp-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: KEY, GITLAB_API_URL: 'http://127.0.0.1:9/api/v4' } },
  { name: 'todoist', package: '@doist/todoist-ai', env: { TODOIST_API_KEY: KEY } },
  { name: 'obsidian', package: 'obsidian-mcp-server', env: { OBSIDIAN_API_KEY: KEY, OBSIDIAN_BASE_URL: 'http://127.0.0.1:27123' } },
  { name: 'mysql', package: '@benborla29/mcp-server-mysql', env: { MYSQL_HOST: '127.0.0.1', MYSQL_PORT: '9', MYSQL_USER: 'placeholder', MYSQL_PASS: KEY, MYSQL_DB: 'placeholder' } },
  { name: 'twilio', package: '@twilio-alpha/mcp', args: ['AC00000000000000000000000000000000/SK00000000000000000000000000000000:placeholder'] },
];
