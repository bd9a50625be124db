/**
 * The ranking under search_mcp_tools, on its own: what a tool says about itself counts by field,
 * keyword stuffing gains nothing, the server tells near-duplicates apart, adjacent words count as
 * a phrase, and a ranking updated server by server ranks exactly as one built at once.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it, vi } from 'vitest';
import { FieldIndex, ScoreSheet } from '../src/search/field-index.js';
import { stem, ToolSearch, type SearchableServer } from '../src/search/index.js';

function tool(name: string, description: string, parameters: string[] = []): Tool {
  return { name, description, inputSchema: { type: 'object', properties: Object.fromEntries(parameters.map((parameter) => [parameter, { type: 'string' }])) } };
}

const top = (search: ToolSearch, query: string, limit = 3) => search.searchTools(query, limit).map(({ server, tool }) => `${server}/${tool.name}`);

/** Two servers that describe themselves alike: only their tools differ. */
const MAIL = { name: 'mail', description: 'Email account' };
// Named to sort first, and listed first: a tie would put the stuffed tool on top.
const PROMO = { name: 'deals', description: 'Email account' };
const SEND_EMAIL: Tool = {
  name: 'send_email',
  description: 'Send an email message to one or more recipients',
  inputSchema: { type: 'object', properties: { to: { type: 'string', description: 'Email address to send to' }, subject: { type: 'string' }, body: { type: 'string' } } },
};
const FILLER = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango'.split(' ');

/** Forty ordinary tools of usual length, as any catalogue has: what "a long description" means is measured against them. */
const BACKGROUND = Array.from({ length: 40 }, (_, at) => ({
  server: 'misc',
  tool: tool(`${FILLER[at % 20]}_${FILLER[(at * 3) % 20]}`, Array.from({ length: 8 }, (_, word) => FILLER[(at + word * 7) % 20]).join(' '), [FILLER[(at + 1) % 20]!]),
}));
const MISC = { name: 'misc', description: 'Assorted tools' };

describe('keyword stuffing', () => {
  it('a description that repeats the query words many times does not outrank a tool of the same name that says it once', () => {
    const search = new ToolSearch([MAIL, PROMO, MISC], [
      ...BACKGROUND,
      { server: 'deals', tool: tool('send_email', `${'send email '.repeat(60)}message recipients`, ['to', 'subject', 'body']) },
      { server: 'mail', tool: SEND_EMAIL },
    ]);
    expect(top(search, 'send an email')[0]).toBe('mail/send_email');
    expect(top(search, 'email someone a message')[0]).toBe('mail/send_email');
  });

  it('a catch-all description naming every popular word, three times over, ranks below every tool whose own words match', () => {
    const vocabulary =
      'file folder email calendar meeting issue pull request repository branch commit slack channel message search web page browser ' +
      'screenshot database query table weather forecast city map directions route memory remember note task todo project deploy build ' +
      'test log error alert invoice payment customer order product price stock news translate image video audio transcript document';
    const search = new ToolSearch([MISC, { name: 'helper', description: 'Helpful tools' }, { name: 'weather', description: 'Weather service' }], [
      ...BACKGROUND,
      { server: 'helper', tool: tool('assist', `Use for anything: ${vocabulary}. ${vocabulary} ${vocabulary}`, ['input']) },
      { server: 'weather', tool: tool('get_forecast', 'Get the weather forecast for a city for the next days', ['city', 'days']) },
      { server: 'weather', tool: tool('get_alerts', 'Active severe weather alerts for a region', ['region']) },
    ]);
    for (const query of ['weather alerts', 'weather forecast for my city', 'what is the forecast']) {
      expect(top(search, query).at(-1), query).toBe('helper/assist');
    }
  });

  it('a description listing hundreds of keywords weighs each of them little', () => {
    const keywords = Array.from({ length: 400 }, (_, at) => `${FILLER[at % FILLER.length]}${Math.floor(at / FILLER.length)}`);
    keywords.splice(200, 0, 'email', 'send', 'message');
    const search = new ToolSearch([MAIL, PROMO, MISC], [
      ...BACKGROUND,
      { server: 'deals', tool: tool('send_email', keywords.join(' '), ['to', 'subject', 'body']) },
      { server: 'mail', tool: SEND_EMAIL },
    ]);
    expect(top(search, 'send an email message')[0]).toBe('mail/send_email');
  });

  it('parameters named after the query words again and again do not outrank a tool of the same name', () => {
    const search = new ToolSearch([MAIL, PROMO, MISC], [
      ...BACKGROUND,
      { server: 'deals', tool: tool('send_email', SEND_EMAIL.description!, Array.from({ length: 30 }, (_, at) => `send_email_${at}`)) },
      { server: 'mail', tool: SEND_EMAIL },
    ]);
    expect(top(search, 'send an email')[0]).toBe('mail/send_email');
  });
});

describe('fields and servers', () => {
  const servers: SearchableServer[] = [
    { name: 'github', description: 'GitHub repositories, issues and pull requests' },
    { name: 'gitlab', description: 'GitLab projects, issues and merge requests' },
    { name: 'memory', description: 'Knowledge graph memory: entities, relations and observations' },
    { name: 'files', description: 'Files under one folder' },
  ];
  const search = new ToolSearch(servers, [
    { server: 'github', tool: tool('create_issue', 'Create a new issue', ['owner', 'repo', 'title']) },
    { server: 'gitlab', tool: tool('create_issue', 'Create a new issue', ['project_id', 'title']) },
    { server: 'memory', tool: tool('create_entities', 'Create multiple new entities in the knowledge graph', ['entities']) },
    { server: 'files', tool: tool('write_file', 'Create a new file or overwrite a file with new content', ['path', 'content']) },
    { server: 'files', tool: tool('request_pull', 'Pull the latest copy of a file from a request', ['path']) },
    { server: 'github', tool: tool('create_pull_request', 'Open a new pull request from a branch', ['head', 'base']) },
  ]);

  it('tells two servers\u2019 tools of one name apart by the server the query names', () => {
    expect(top(search, 'create an issue in gitlab')[0]).toBe('gitlab/create_issue');
    expect(top(search, 'create an issue on github')[0]).toBe('github/create_issue');
  });

  it('answers words only the server uses with that server\u2019s tools', () => {
    expect(top(search, 'add an entity to the knowledge graph')[0]).toBe('memory/create_entities');
  });

  it('counts adjacent query words found adjacent as a phrase', () => {
    expect(top(search, 'pull request')[0]).toBe('github/create_pull_request');
  });
});

describe('what a tool does against what it takes', () => {
  it('ranks the tool whose description says what the query asks over one whose parameters only mention its words', () => {
    const described = (name: string, description: string, parameters: Record<string, string>): Tool => ({
      name,
      description,
      inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(parameters).map(([parameter, text]) => [parameter, { type: 'string', description: text }])) },
    });
    // Parameters of usual length, as any catalogue has: a dozen words each.
    const background = Array.from({ length: 40 }, (_, at) => ({
      server: 'misc',
      tool: described(`${FILLER[at % 20]}_${FILLER[(at * 3) % 20]}`, Array.from({ length: 8 }, (_, word) => FILLER[(at + word * 7) % 20]).join(' '), {
        [FILLER[(at + 1) % 20]!]: Array.from({ length: 12 }, (_, word) => FILLER[(at + word * 3) % 20]).join(' '),
      }),
    }));
    const search = new ToolSearch([MISC, { name: 'gallery', description: 'Pictures' }, { name: 'atlas', description: 'Maps' }], [
      ...background,
      { server: 'gallery', tool: described('search_library', 'Find photos by the place or the day they were taken', { place: 'City or country', day: 'Date' }) },
      {
        server: 'atlas',
        tool: described('show_place', 'Show a place on the map', { city: 'City, e.g. Paris', photos: 'Whether to add the photos taken there', taken_since: 'Only photos taken since this day' }),
      },
    ]);
    expect(top(search, 'photos taken in Paris')[0]).toBe('gallery/search_library');
  });
});

describe('what a query asks for', () => {
  it('answers a request to change something with a tool that changes, not one that reads the same thing', () => {
    const search = new ToolSearch([MISC, { name: 'wiki', description: 'Wiki pages and their comments' }], [
      ...BACKGROUND,
      { server: 'wiki', tool: tool('get_page_comments', 'Get the comments added to a page', ['page_id']) },
      { server: 'wiki', tool: tool('create_comment', 'Create a comment on a page or in a discussion', ['page_id', 'text']) },
      { server: 'wiki', tool: { ...tool('page_history', 'Comments and changes added to a page over time', ['page_id']), annotations: { readOnlyHint: true } } },
    ]);
    expect(top(search, 'add a comment to the page')[0]).toBe('wiki/create_comment');
    expect(top(search, 'please add comments to a page')[0]).toBe('wiki/create_comment');
  });

  it('reads a request that says something ("… that the dates moved") as a change, though its first word is no changing verb', () => {
    const search = new ToolSearch([MISC, { name: 'wiki', description: 'Wiki pages and their comments' }], [
      ...BACKGROUND,
      { server: 'wiki', tool: tool('get_page_comments', 'Get the comments added to a page', ['page_id']) },
      { server: 'wiki', tool: tool('create_comment', 'Create a comment on a page or in a discussion', ['page_id', 'text']) },
    ]);
    expect(top(search, 'comment on the launch page that the dates moved')[0]).toBe('wiki/create_comment');
    expect(top(search, 'find the comments on the launch page that mention dates')[0]).toBe('wiki/get_page_comments');
  });

  it('answers a request that removes nothing with a tool that does not remove, though one that removes says more of its words', () => {
    const search = new ToolSearch([MISC, { name: 'memory', description: 'A knowledge graph to remember things' }], [
      ...BACKGROUND,
      { server: 'memory', tool: tool('create_entities', 'Create entities in the knowledge graph', ['entities']) },
      { server: 'memory', tool: tool('delete_relations', 'Delete relations between people from the knowledge graph', ['relations']) },
    ]);
    expect(top(search, 'remember that Ana is my sister')[0]).toBe('memory/create_entities');
    expect(top(search, 'forget that Ana is my sister')[0]).toBe('memory/delete_relations');
  });

  it('still answers a question with the reading tool', () => {
    const search = new ToolSearch([MISC, { name: 'wiki', description: 'Wiki pages and their comments' }], [
      ...BACKGROUND,
      { server: 'wiki', tool: tool('get_page_comments', 'Get the comments added to a page', ['page_id']) },
      { server: 'wiki', tool: tool('create_comment', 'Create a comment on a page or in a discussion', ['page_id', 'text']) },
    ]);
    expect(top(search, 'which comments were added to the page?')[0]).toBe('wiki/get_page_comments');
  });

  it('answers a question with the tool that reads though one that changes says a little more of its words', () => {
    const search = new ToolSearch([MISC, { name: 'base', description: 'Tables of records' }], [
      ...BACKGROUND,
      { server: 'base', tool: tool('create_table', 'Create a table in a base, with its fields', ['base_id', 'name', 'fields']) },
      { server: 'base', tool: tool('describe_table', 'Describe a table of a base: its fields and views', ['base_id', 'table_id']) },
    ]);
    expect(top(search, 'what fields does the table in my base have')[0]).toBe('base/describe_table');
    expect(top(search, 'add fields to the table in my base')[0]).toBe('base/create_table');
  });
});

describe('where a request\u2019s object goes', () => {
  const search = new ToolSearch(
    [MISC, { name: 'airtable', description: 'Airtable bases, tables and records' }, { name: 'chat', description: 'Messages to the followers of an account' }, { name: 'browser', description: 'Drives a web browser' }, { name: 'web', description: 'Web pages' }],
    [
      ...BACKGROUND,
      { server: 'airtable', tool: tool('create_table', 'Create a new table in a base', ['base_id', 'name', 'fields', 'description']) },
      { server: 'airtable', tool: tool('list_records', 'List the records of a table', ['base_id', 'table_id']) },
      { server: 'airtable', tool: tool('update_records', 'Update records in a table', ['base_id', 'table_id', 'records']) },
      { server: 'airtable', tool: tool('delete_records', 'Delete records from a table', ['base_id', 'table_id', 'ids']) },
      { server: 'airtable', tool: tool('list_bases', 'List the bases you can access', []) },
      { server: 'airtable', tool: tool('create_record', 'Create a new record in a table', ['base_id', 'table_id', 'fields']) },
      { server: 'chat', tool: tool('broadcast_message', 'Send a message to everyone', ['text']) },
      { server: 'chat', tool: tool('get_follower_ids', 'Get the ids of the followers', ['start']) },
      { server: 'chat', tool: tool('get_profile', 'Get the profile of a user', ['user_id']) },
      { server: 'browser', tool: tool('browser_navigate', 'Navigate to a URL', ['url']) },
      { server: 'browser', tool: tool('browser_click', 'Click an element of the page', ['selector']) },
      { server: 'browser', tool: tool('browser_snapshot', 'Snapshot of the page', []) },
      { server: 'web', tool: tool('open_page', 'Open a web page by its URL and return its text', ['url']) },
    ],
  );

  it('does not name the tool: "add a row to the Leads table" makes a record, not a table', () => {
    expect(top(search, 'add a row to the Leads table')[0]).toBe('airtable/create_record');
  });

  it('still names the tool when the request says it outside the place too', () => {
    expect(top(search, 'add a table to the base')[0]).toBe('airtable/create_table');
  });

  it('still names its server\u2019s tools when it is their server\u2019s own word: "in the browser" is for the browser_ tools', () => {
    expect(top(search, 'open example.com in the browser')[0]).toMatch(/^browser\//);
  });
});

describe('synonyms', () => {
  it('count a word the query says once: "table" is not also a synonym of "row" in "add a row to the table"', () => {
    const search = new ToolSearch([MISC, { name: 'base', description: 'A database of tables' }], [
      ...BACKGROUND,
      { server: 'base', tool: tool('create_table', 'Create a table in a base', ['base_id', 'name']) },
      { server: 'base', tool: tool('create_record', 'Create a record in a table', ['table_id', 'fields']) },
    ]);
    expect(top(search, 'add a row to the orders table')[0]).toBe('base/create_record');
  });
});

describe('a tool\u2019s name', () => {
  it('ranks first the tool whose name the query says whole, over tools whose descriptions say as much', () => {
    const search = new ToolSearch([MISC, { name: 'tracker', description: 'Error tracking' }], [
      ...BACKGROUND,
      { server: 'tracker', tool: tool('find_organizations', 'Find the organizations you have access to', ['query']) },
      { server: 'tracker', tool: tool('find_projects', 'Find projects in an organization you can access', ['organization_slug', 'query']) },
      { server: 'tracker', tool: tool('find_teams', 'Find teams in an organization you can access', ['organization_slug', 'query']) },
      { server: 'tracker', tool: tool('find_issues', 'Find issues in a project', ['organization_slug', 'project_slug']) },
    ]);
    expect(top(search, 'which organizations can I access')[0]).toBe('tracker/find_organizations');
  });

  it('counts a synonym of the request’s verb in the name: "find" says the `search` tool’s name', () => {
    const search = new ToolSearch([MISC, { name: 'notes', description: 'A notebook' }], [
      ...BACKGROUND,
      { server: 'notes', tool: tool('search', 'Search pages of notebooks by their text', ['query']) },
      { server: 'notes', tool: tool('get_pages', 'Get the pages of a notebook', ['notebook_id']) },
    ]);
    expect(top(search, 'find the notebook pages about goals')[0]).toBe('notes/search');
  });
});

describe('a server the query names', () => {
  const servers: SearchableServer[] = [
    { name: 'github', description: 'GitHub API' },
    { name: 'git', description: 'Git version control' },
    { name: 'files', description: 'Files under one folder' },
    { name: 'pdf', description: 'PDF documents' },
  ];
  const search = new ToolSearch(servers, [
    { server: 'github', tool: tool('list_commits', 'List commits of a branch in a repository', ['owner', 'repo', 'sha']) },
    { server: 'github', tool: tool('create_issue', 'Create a new issue in a repository', ['owner', 'repo', 'title']) },
    { server: 'git', tool: tool('git_log', 'Show the commit history of the repository', ['path', 'max_count']) },
    { server: 'git', tool: tool('git_show', 'Show the contents of a commit', ['path', 'revision']) },
    { server: 'files', tool: tool('move_file', 'Move or rename a file or directory', ['source', 'destination']) },
    { server: 'pdf', tool: tool('read_pdf', 'Read the text of a PDF file', ['url']) },
    { server: 'pdf', tool: tool('list_pdfs', 'List the PDF files of an archive', ['limit']) },
  ]);

  it('puts the named server\u2019s tool first though another server\u2019s tool says more of the query', () => {
    expect(top(search, 'show the commit history on github')[0]).toBe('github/list_commits');
  });

  it('hardly lifts a server whose name is a word many other tools use', () => {
    const messagingServer = (name: string) =>
      new ToolSearch([], [
        { server: 'files', tool: tool('read_file', 'Read a file, or only its first or last lines', ['path', 'head', 'tail']) },
        { server: 'files', tool: tool('edit_file', 'Replace lines of a text file', ['path', 'edits']) },
        { server: 'files', tool: tool('search_text', 'Find the lines of files that match a pattern', ['pattern']) },
        { server: 'editor', tool: tool('goto_line', 'Move the cursor to a line', ['line']) },
        { server: 'editor', tool: tool('comment_line', 'Comment out a line', ['line']) },
        { server: name, tool: tool('push_message', 'Push a text message to a user of your LINE Official Account', ['user_id', 'text']) },
        { server: name, tool: tool('get_profile', 'Get the profile of a user', ['user_id']) },
      ]);
    const pushScore = (search: ToolSearch, query: string) => search.searchTools(query, 7).find(({ tool }) => tool.name === 'push_message')!.score;
    // "line" in "read a line of text" names the LINE server no more surely than it names a line of a file.
    expect(pushScore(messagingServer('line'), 'read a line of text')).toBeLessThan(1.25 * pushScore(messagingServer('chat'), 'read a line of text'));
    expect(top(messagingServer('line'), 'read a line of text')[0]).toBe('files/read_file');
    expect(top(messagingServer('line'), 'send a text on line')[0]).toBe('line/push_message');
  });

  it('reads a file name\u2019s extension as part of the file, not as a server', () => {
    expect(top(search, 'move report.pdf into the archive folder')[0]).toBe('files/move_file');
  });
});

describe('what a query implies', () => {
  it('reads a file name with an extension as speaking of a file, though the query never says "file"', () => {
    const search = new ToolSearch([{ name: 'files', description: 'Local files' }, { name: 'wiki', description: 'Team wiki' }], [
      { server: 'files', tool: tool('read_file', 'Read the complete contents of a file from disk') },
      { server: 'files', tool: tool('list_directory', 'List the entries of a directory') },
      { server: 'wiki', tool: tool('get_page_contents', 'Get the contents of a wiki page, such as the config or setup page') },
    ]);
    expect(top(search, 'print the contents of setup.json')[0]).toBe('files/read_file');
    expect(top(search, 'show me config.yaml')[0]).toBe('files/read_file');
  });

  it('reads a list or a count of things as asking for a tool that acts on many at once, and one thing as not', () => {
    const search = new ToolSearch([{ name: 'crm', description: 'Customer records' }], [
      { server: 'crm', tool: tool('get_contact', 'Get a contact by its id, with its email and phone') },
      { server: 'crm', tool: tool('batch_read_contacts', 'Read contacts by their ids in one call') },
    ]);
    expect(top(search, 'fetch contacts 101, 102 and 103 with their emails')[0]).toBe('crm/batch_read_contacts');
    expect(top(search, 'fetch three contacts with their emails')[0]).toBe('crm/batch_read_contacts');
    expect(top(search, 'fetch contact 101 with its email')[0]).toBe('crm/get_contact');
    expect(top(search, 'how many contacts have an email')[0]).toBe('crm/get_contact');
  });
});

describe('values the query gives', () => {
  const takes = (name: string, description: string, required: Record<string, { type: string; description?: string }>): Tool => ({
    name,
    description,
    inputSchema: { type: 'object', properties: required, required: Object.keys(required) },
  });
  const search = new ToolSearch(
    [{ name: 'browser', description: 'A web browser' }, { name: 'calc', description: 'Arithmetic' }, { name: 'notes', description: 'Notes' }, MISC],
    [
      ...BACKGROUND,
      { server: 'browser', tool: takes('open_tab', 'Open a new empty tab', { title: { type: 'string', description: 'Title of the tab' } }) },
      { server: 'browser', tool: takes('open_page', 'Load an address in the current page', { url: { type: 'string', description: 'Address to load' } }) },
      { server: 'calc', tool: takes('add_numbers', 'Returns the sum of two numbers', { a: { type: 'number' }, b: { type: 'number' } }) },
      { server: 'notes', tool: takes('add_note', 'Add a note to the notebook', { text: { type: 'string' } }) },
    ],
  );

  it('lifts the tool whose required parameter takes the URL the query gives', () => {
    expect(top(search, 'open https://example.org/docs')[0]).toBe('browser/open_page');
  });

  it('lifts the tool whose required parameters take the numbers the query gives', () => {
    expect(top(search, 'add 17 and 25')[0]).toBe('calc/add_numbers');
  });

  it('lifts nothing for a query that gives no value', () => {
    expect(top(search, 'open a tab')[0]).toBe('browser/open_tab');
  });

  it('finds the tool that takes a phone number the query gives though it shares no word with the query', () => {
    const sms = new ToolSearch(
      [{ name: 'sms', description: 'Messaging' }, { name: 'notes', description: 'Notes' }, MISC],
      [
        ...BACKGROUND,
        { server: 'sms', tool: takes('create_message', 'Send a message', { to: { type: 'string', description: 'The recipient phone number' } }) },
        { server: 'notes', tool: takes('list_orders', 'List the orders of the shop', { text: { type: 'string' } }) },
      ],
    );
    const score = (query: string) => sms.searchTools(query, 5).find(({ tool }) => tool.name === 'create_message')?.score ?? 0;
    expect(top(sms, 'ping +15551234567 that the order has shipped')).toContain('sms/create_message');
    // Without the number, the query's words reach it only faintly, through related words.
    expect(score('ping +15551234567 that the order has shipped')).toBeGreaterThan(10 * score('ping bob that the order has shipped'));
  });

  it('finds the tool whose two or more required parameters the query\u2019s numbers all fill, and no tool by one number alone', () => {
    const calc = new ToolSearch(
      [{ name: 'calc', description: 'Arithmetic' }, { name: 'tracker', description: 'Issues' }, MISC],
      [
        ...BACKGROUND,
        { server: 'calc', tool: takes('total', 'Adds a and b', { a: { type: 'number' }, b: { type: 'number' } }) },
        { server: 'tracker', tool: takes('issue_by_id', 'One issue', { id: { type: 'number' } }) },
        { server: 'tracker', tool: takes('list_issues', 'Lists what is open', { state: { type: 'string' } }) },
      ],
    );
    const found = (query: string) => calc.searchTools(query, 5).map(({ tool }) => tool.name);
    expect(found('what is 3.5 plus 8')).toContain('total');
    expect(found('what is 3.5 plus 8')).not.toContain('issue_by_id');
    const score = (query: string) => calc.searchTools(query, 5).find(({ tool }) => tool.name === 'total')?.score ?? 0;
    // One number fills no tool's two: only words related to "open" reach it then (the hand synonym "add").
    expect(score('what is 3.5 plus 8')).toBeGreaterThan(2 * score('what is open since 8'));
  });

  it('ranks the same and writes nothing, whatever the environment holds (no experiment switch is left in the ranking)', () => {
    // The thirty-seventh round's grid switches (B_VARIANT, B_DEBUG) once reached main with its write-up.
    const ranked = () => search.searchTools('add 17 and 25 to my notes', 5).map(({ server, tool, score }) => `${server}/${tool.name} ${score}`);
    const plain = ranked();
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.stubEnv('B_VARIANT', 'c1');
    vi.stubEnv('B_DEBUG', '1');
    try {
      expect(ranked()).toEqual(plain);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
      errors.mockRestore();
    }
  });
});

describe('a server\u2019s whole text', () => {
  it('lifts the tool of the server whose other tools speak of the query\u2019s subject, over a twin that says the same of itself', () => {
    // "market" sorts before "pantry": with nothing else to tell the two create_item apart, market's would come first.
    const search = new ToolSearch(
      [{ name: 'market', description: 'Shop' }, { name: 'pantry', description: 'Household notes' }, MISC],
      [
        ...BACKGROUND,
        { server: 'market', tool: tool('create_item', 'Create a new item') },
        { server: 'market', tool: tool('checkout_cart', 'Pay for what is in the cart') },
        { server: 'pantry', tool: tool('create_item', 'Create a new item') },
        { server: 'pantry', tool: tool('tag_recipe', 'Tag a recipe with an ingredient') },
      ],
    );
    expect(top(search, 'create a new item for a recipe')[0]).toBe('pantry/create_item');
  });
});

describe('a tool copied word for word onto another server', () => {
  const CREATE_ISSUE = tool('create_issue', 'Create a new issue in a GitHub repository', ['owner', 'repo', 'title']);
  const GITHUB = { name: 'github', description: 'MCP server for using the GitHub API' };
  const githubTools = [
    { server: 'github', tool: CREATE_ISSUE },
    { server: 'github', tool: tool('merge_pull_request', 'Merge a pull request in a GitHub repository', ['owner', 'repo', 'number']) },
    { server: 'github', tool: tool('search_code', 'Search for code across GitHub repositories', ['q']) },
  ];
  // One tool and no description: the smaller catalogue's lifts put its copy first, and "aaa" sorts before "github".
  const withCopyOn = (server: string) => new ToolSearch([GITHUB, { name: server }, MISC], [...BACKGROUND, ...githubTools, { server, tool: structuredClone(CREATE_ISSUE) }]);

  it('ranks below the tool it copies, whose description names its own server', () => {
    expect(top(withCopyOn('aaa'), 'create an issue', 2)).toEqual(['github/create_issue', 'aaa/create_issue']);
    expect(top(withCopyOn('helper'), 'open a new issue', 1)).toEqual(['github/create_issue']);
  });

  it('comes after it when the query is the tool\u2019s exact name', () => {
    expect(top(withCopyOn('aaa'), 'create_issue', 2)).toEqual(['github/create_issue', 'aaa/create_issue']);
  });

  it('keeps its score when its description names its own server too: the server\u2019s name is what tells them apart then', () => {
    const search = withCopyOn('github-mirror');
    const [first, second] = search.searchTools('create an issue', 2);
    expect([first!.server, second!.server].sort()).toEqual(['github', 'github-mirror']);
    expect(top(search, 'create an issue in the github mirror', 1)).toEqual(['github-mirror/create_issue']);
  });

  it('is a tool of its own once one word differs: a fork\u2019s "… in a Gitea repository" on forgejo is not put below GitHub\u2019s', () => {
    // A one-word change is where a sibling product writes its own name; an impersonator escapes any fixed distance by changing one word more.
    const search = new ToolSearch([GITHUB, { name: 'forgejo' }, MISC], [...BACKGROUND, ...githubTools, { server: 'forgejo', tool: { ...structuredClone(CREATE_ISSUE), description: 'Create a new issue in a Gitea repository' } }]);
    expect(top(search, 'create an issue in a gitea repository', 1)).toEqual(['forgejo/create_issue']);
  });
});

describe('how words are read', () => {
  const search = new ToolSearch([{ name: 'browser', description: 'Web browser' }, { name: 'shell', description: 'Local shell' }], [
    { server: 'browser', tool: tool('list_urls', 'List the links found on the current page') },
    { server: 'browser', tool: tool('get_profile', 'Get the profile of a signed-in user') },
    { server: 'shell', tool: tool('run_ls', 'Run ls in a folder: list its entries') },
    { server: 'shell', tool: tool('set_user_shell', 'Set the login shell of a user (s for short)') },
  ]);

  it('reads an acronym\u2019s plural as the acronym: "URLs" is url, not "ur" and "ls"', () => {
    expect(top(search, 'list the URLs on this page')[0]).toBe('browser/list_urls');
  });

  it('reads a possessive as its word: "the user\u2019s shell" ranks as "the user shell", with no word "s"', () => {
    const plain = search.searchTools('change the user shell', 4);
    expect(search.searchTools("change the user's shell", 4)).toEqual(plain);
    expect(search.searchTools('change the user\u2019s shell', 4)).toEqual(plain);
  });

  it('reads a URL as its host\u2019s words: its path and ids do not meet tool names by chance', () => {
    const videos = new ToolSearch([MISC, { name: 'media', description: 'Videos and pages' }], [
      ...BACKGROUND,
      { server: 'media', tool: tool('get_transcript', 'Get the captions of a video', ['url']) },
      { server: 'media', tool: tool('download_images', 'Download the images of a page', ['url']) },
    ]);
    expect(top(videos, 'get the captions of https://videos.example.com/watch/download-images')[0]).toBe('media/get_transcript');
  });

  it('takes "-ing" and "-ed" only from a word that keeps a vowel: "string" stays whole, not the "str" of str_replace', () => {
    expect(stem('strings')).toBe(stem('string'));
    expect(stem('string')).not.toBe(stem('str'));
    expect(stem('spring')).toBe('spring');
    expect(stem('listing')).toBe(stem('list'));
    const text = new ToolSearch([{ name: 'text', description: 'Text tools' }], [
      { server: 'text', tool: tool('str_replace', 'Replace the first match in a file') },
      { server: 'text', tool: tool('upper_case', 'Upper-case every letter of a string') },
    ]);
    expect(top(text, 'make this string upper-case')[0]).toBe('text/upper_case');
    expect(top(text, 'how long is this string')).not.toContain('text/str_replace');
  });

  it('reads "-eed" as Porter does, not as a past "-ed": "speed" stays whole and "proceed" meets "proceeding"', () => {
    expect(stem('speed')).toBe('speed');
    expect(stem('speeding')).toBe(stem('speed'));
    expect(stem('proceed')).toBe(stem('proceeding'));
    expect(stem('proceed')).toBe(stem('proceeded'));
    expect(stem('agreed')).toBe(stem('agree'));
    expect(stem('needed')).toBe(stem('need'));
  });

  it('reads a final "y" after a vowelled stem as "i", as Porter does: "copy" meets "copied" and "movie" meets "movies"', () => {
    expect(stem('copied')).toBe(stem('copy'));
    expect(stem('copying')).toBe(stem('copies'));
    expect(stem('replied')).toBe(stem('reply'));
    expect(stem('movies')).toBe(stem('movie'));
    expect(stem('queries')).toBe(stem('query'));
    expect(stem('sky')).toBe('sky');
    const clipboard = new ToolSearch([{ name: 'clip', description: 'Clipboard' }], [
      { server: 'clip', tool: tool('copy_text', 'Put text on the clipboard') },
      { server: 'clip', tool: tool('paste_text', 'Type what the clipboard holds') },
    ]);
    expect(top(clipboard, 'what I copied')[0]).toBe('clip/copy_text');
  });

  it('reads a word no tool holds as the two words tools write apart: "sitemap" is "site map", "richmenu" is "rich menu"', () => {
    const web = new ToolSearch([MISC, { name: 'web', description: 'Web pages' }, { name: 'chat', description: 'Chat channel' }], [
      ...BACKGROUND,
      { server: 'web', tool: tool('map_site', 'List the addresses of a site as a map of its links', ['url']) },
      { server: 'web', tool: tool('crawl_site', 'Crawl a site and return the text of every page', ['url']) },
      { server: 'chat', tool: tool('set_default_rich_menu', 'Set the rich menu every follower sees') },
      { server: 'chat', tool: tool('set_default_greeting', 'Set the greeting every new follower sees by default') },
    ]);
    expect(top(web, 'I want a sitemap of docs.example.dev')[0]).toBe('web/map_site');
    expect(top(web, 'make richmenu-5521 the default one')[0]).toBe('chat/set_default_rich_menu');
    expect(top(web, 'I want a site map of docs.example.dev')[0]).toBe('web/map_site');
  });
});

describe('contractions in a query', () => {
  const search = new ToolSearch([{ name: 'tracker', description: 'Issues and games' }], [
    { server: 'tracker', tool: tool('archive_issue', 'Archive an issue') },
    { server: 'tracker', tool: tool('list_games_won', 'List the games a team won') },
    { server: 'tracker', tool: tool('delete_issue', 'Delete an issue') },
  ]);

  it('are undone before ranking: "won\'t" says "will", not "won" and "t"', () => {
    // The tool that shares "issue" comes before the one that shares only the "won" of "won't".
    expect(top(search, "archive issue 12, we won't do it").slice(0, 2)).toEqual(['tracker/archive_issue', 'tracker/delete_issue']);
    expect(top(search, 'archive issue 12, we won\u2019t do it').slice(0, 2)).toEqual(['tracker/archive_issue', 'tracker/delete_issue']);
    expect(top(search, "which games haven't we won?")[0]).toBe('tracker/list_games_won');
  });
});

describe('shortened words', () => {
  const search = new ToolSearch([MISC, { name: 'maps', description: 'Maps and places' }], [
    ...BACKGROUND,
    { server: 'maps', tool: tool('reverse_geocode', 'Name the place at the given coordinates', ['latitude', 'longitude']) },
    { server: 'maps', tool: tool('place_photos', 'Photos of a place', ['place']) },
    { server: 'maps', tool: tool('nearby_places', 'Places near a place', ['place']) },
  ]);

  it('a word no tool holds is read as the words tools hold that it begins: "coords" for coordinates', () => {
    expect(top(search, 'which place are these coords from')[0]).toBe('maps/reverse_geocode');
  });

  it('knows the words of a server set after the others', () => {
    search.setServer({ name: 'weather', description: 'Weather' }, [
      tool('daily_temperatures', 'Highest and lowest temperatures of each day', ['city']),
      tool('daily_rainfall', 'Rain of each day', ['city']),
    ]);
    expect(top(search, 'temps in Oslo each day')[0]).toBe('weather/daily_temperatures');
  });
});

describe('values whose form the tools give as examples', () => {
  const described = (name: string, description: string, parameters: Record<string, string>, required: string[] = []): Tool => ({
    name,
    description,
    inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(parameters).map(([parameter, text]) => [parameter, { type: 'string', description: text }])), required },
  });
  // Alike but for the example their key's description gives; "desk" sorts first, so a tie puts it on top.
  const search = new ToolSearch([MISC, { name: 'desk', description: 'Work items' }, { name: 'tracker', description: 'Work items' }], [
    ...BACKGROUND,
    { server: 'desk', tool: described('close_item', 'Close an item', { key: 'The key of the item, e.g. 48213' }, ['key']) },
    { server: 'tracker', tool: described('close_item', 'Close an item', { key: 'The key of the item, e.g. ABC-123' }, ['key']) },
  ]);

  it('a query token of the form of a parameter\'s example finds its tool: PAY-2291 the tool whose key is "e.g. ABC-123"', () => {
    expect(top(search, 'close PAY-2291 please')[0]).toBe('tracker/close_item');
  });

  it('reads the examples of optional parameters, and of a server set after the others, and forgets them when it goes', () => {
    search.setServer({ name: 'sms', description: 'Texts' }, [
      described('list_messages', 'List the messages sent', { account: 'The account', to: 'Only those sent to this number, for example `+15558881111`' }, ['account']),
      described('list_calls', 'List the calls made', { account: 'The account' }, ['account']),
    ]);
    // Alike but for the example: list_calls sorts first.
    expect(top(search, 'list everything to +44 7700 900123', 1)).toEqual(['sms/list_messages']);
    search.removeServer('tracker');
    expect(top(search, 'close PAY-2291 please')[0]).toBe('desk/close_item');
  });
});

describe('derived nouns', () => {
  const search = new ToolSearch([{ name: 'teams', description: 'Teams and pages' }], [
    { server: 'teams', tool: tool('add_member', 'Add a member to a team') },
    { server: 'teams', tool: tool('rename_team', 'Rename a team') },
    { server: 'teams', tool: tool('archive_page', 'Archive a page') },
    { server: 'teams', tool: tool('delete_page', 'Delete a page') },
  ]);

  it('meet their word: "membership" finds the member tool, "deletion" the delete tool', () => {
    expect(top(search, 'team membership for Bob')[0]).toBe('teams/add_member');
    expect(top(search, 'page deletion')[0]).toBe('teams/delete_page');
  });
});

describe('words no tool uses, through the thesaurus (WordNet)', () => {
  const search = new ToolSearch([MISC, { name: 'rentals', description: 'Rentals' }, { name: 'player', description: 'Media player' }], [
    ...BACKGROUND,
    { server: 'rentals', tool: tool('rent_bike', 'Rent a bike for a day') },
    { server: 'rentals', tool: tool('rent_car', 'Rent a car for a day') },
    { server: 'player', tool: tool('play_music', 'Play music from the library') },
    { server: 'player', tool: tool('play_clip', 'Play a clip from the library') },
  ]);

  it('finds a tool by a synonym of its word: "automobile" finds the car tool', () => {
    expect(top(search, 'rent an automobile for Saturday')[0]).toBe('rentals/rent_car');
  });

  it('finds a tool by a derived form of its word: "musical" finds the music tool', () => {
    expect(top(search, 'play something musical')[0]).toBe('player/play_music');
  });
});

describe('word associations learned from labelled queries (off unless given)', () => {
  const servers = [MISC, { name: 'rentals', description: 'Rentals' }];
  const tools = [...BACKGROUND, { server: 'rentals', tool: tool('rent_bike', 'Rent a bike for a day') }, { server: 'rentals', tool: tool('rent_car', 'Rent a car for a day') }];
  // A word no tool, synonym table or WordNet knows: only an association can tie it to "car".
  const query = 'rent a zorblax for the weekend';

  it('finds the tool a query word is associated with', () => {
    const search = new ToolSearch(servers, tools, { associations: new Map([[stem('zorblax'), [[stem('car'), 0.8]]]]) });
    expect(top(search, query)[0]).toBe('rentals/rent_car');
  });

  it('without the associations, does not', () => {
    expect(top(new ToolSearch(servers, tools), query)[0]).toBe('rentals/rent_bike');
  });
});

describe("words that go together in the catalogue's own tools (no query learned from)", () => {
  // "spreadsheet" is not in add_ledger_row, but both tools that say it are named for the ledger.
  const search = new ToolSearch(
    [{ name: 'books' }, { name: 'misc' }],
    [
      ...BACKGROUND,
      ...[tool('ledger_import', 'Import a spreadsheet into the books'), tool('ledger_export', 'Export the books as a spreadsheet'), tool('add_ledger_row', 'Adds a row to the books'), tool('add_grid_row', 'Adds a row to a grid')].map(
        (entry) => ({ server: 'books', tool: entry }),
      ),
    ],
  );

  it('lifts a tool that holds a word the query word goes with', () => {
    const ranked = top(search, 'add a row to the spreadsheet', 10);
    expect(ranked.indexOf('books/add_ledger_row')).toBeLessThan(ranked.indexOf('books/add_grid_row'));
  });
});

describe('updated server by server', () => {
  const catalogue: Array<{ server: SearchableServer; tools: Tool[] }> = Array.from({ length: 12 }, (_, at) => ({
    server: { name: `server-${at}`, description: `${FILLER[at]} service for ${FILLER[(at * 7) % FILLER.length]} records` },
    tools: Array.from({ length: 5 }, (_, index) =>
      tool(`${FILLER[(at + index) % FILLER.length]}_${FILLER[(at * 3 + index) % FILLER.length]}`, `${FILLER[(index * 5 + at) % FILLER.length]} the ${FILLER[(at + 2 * index) % FILLER.length]} records of a ${FILLER[index]} list`, [FILLER[(at + index + 1) % FILLER.length]!]),
    ),
  }));
  const queries = ['alpha records', 'bravo the charlie list', 'delta service', 'echo foxtrot', 'golf hotel india records', 'kilo'];
  const rankings = (search: ToolSearch) => queries.map((query) => search.searchTools(query, 10).map(({ server, tool, score }) => [server, tool.name, score.toFixed(9)]));

  it('ranks as a ranking built at once after servers were added, changed and removed', () => {
    const atOnce = new ToolSearch(
      catalogue.map(({ server }) => server),
      catalogue.flatMap(({ server, tools }) => tools.map((entry) => ({ server: server.name, tool: entry }))),
    );
    const step = new ToolSearch();
    for (const { server, tools } of [...catalogue].reverse()) step.setServer(server, tools.slice(0, 2));
    step.removeServer('server-3');
    step.removeServer('server-8');
    for (const { server, tools } of catalogue) step.setServer(server, tools);
    expect(step.toolCount).toBe(atOnce.toolCount);
    expect(rankings(step)).toEqual(rankings(atOnce));
  });
});

describe('word starts (src/search/field-index.ts)', () => {
  it('name the words held as documents come and go, never the word itself', () => {
    const index = new FieldIndex([{ weight: 1, b: 0 }]);
    const first = index.add([['temperatur', 'dai']], [['temperatur dai']]);
    const second = index.add([['temperatur', 'templat']]);
    expect([...index.wordsStartingWith('tem')].sort()).toEqual(['temperatur', 'templat']);
    expect([...index.wordsStartingWith('temperatur')]).toEqual([]);
    index.remove(first);
    expect([...index.wordsStartingWith('temp')].sort()).toEqual(['temperatur', 'templat']);
    index.remove(second);
    expect([...index.wordsStartingWith('tem')]).toEqual([]);
    expect([...index.wordsStartingWith('dai')]).toEqual([]);
  });
});

describe('the score sheet (src/search/field-index.ts)', () => {
  it('lists a document once however often it is scored, a gain of zero included', () => {
    const sheet = new ScoreSheet();
    sheet.clear(8);
    sheet.add(3, 0, 0);
    sheet.add(3, 1, 1);
    sheet.add(5, 0.5, 1);
    sheet.add(5, -0.5, 0);
    sheet.add(5, 0.25, 0);
    expect(sheet.docs).toEqual([3, 5]);
    sheet.clear(8);
    sheet.add(5, 0, 0);
    sheet.set(3, 0);
    expect(sheet.docs).toEqual([5, 3]);
  });
});

describe('values a parameter lists', () => {
  const reviewTool = (verdicts: string[]): Tool => ({
    name: 'review_change',
    description: 'Review a change',
    inputSchema: { type: 'object', properties: { change: { type: 'string' }, verdict: { type: 'string', enum: verdicts } }, required: ['change', 'verdict'] },
  });
  const COUNTRIES = ['AT', 'BE', 'CH', 'DE', 'DK', 'ES', 'FI', 'FR', 'IT'];

  it('a short enum says what a tool can do: "approve" finds the review tool whose verdict is APPROVE, not its twin without it', () => {
    // Alike but for the enum: "alpha" sorts first, so a tie puts it on top.
    const search = new ToolSearch([MISC, { name: 'alpha', description: 'Code review' }, { name: 'beta', description: 'Code review' }], [
      ...BACKGROUND,
      { server: 'alpha', tool: reviewTool([]) },
      { server: 'beta', tool: reviewTool(['APPROVE', 'REQUEST_CHANGES', 'COMMENT']) },
    ]);
    expect(top(search, 'approve change 12', 1)).toEqual(['beta/review_change']);
  });

  it('a long enum is data, not a choice of action: its values are not read', () => {
    const search = new ToolSearch([MISC, { name: 'alpha', description: 'Code review' }, { name: 'beta', description: 'Code review' }], [
      ...BACKGROUND,
      { server: 'alpha', tool: reviewTool([]) },
      { server: 'beta', tool: reviewTool([...COUNTRIES, 'APPROVE']) },
    ]);
    expect(top(search, 'approve change 12', 1)).toEqual(['alpha/review_change']);
  });
});

describe('words the catalogue uses alike', () => {
  it('a query word few tools hold reaches the words used like it ("shelve" beside "working tree", as "stash" is)', () => {
    // The two save_work tools are alike but for "stash"; "alpha" sorts first, so a tie puts it on top.
    const search = new ToolSearch([{ name: 'alpha', description: 'Version control' }, { name: 'beta', description: 'Version control' }, { name: 'ide', description: 'Editor' }], [
      { server: 'alpha', tool: tool('save_work', 'Save work as it is, in a safe place') },
      { server: 'beta', tool: tool('save_work', 'Save work: stash the working tree') },
      { server: 'beta', tool: tool('list_stashes', 'List what you stash of the working tree') },
      {
        server: 'ide',
        tool: { name: 'open_project', description: 'Open a project', inputSchema: { type: 'object', properties: { mode: { type: 'string', description: 'Whether to shelve the working tree first' } } } },
      },
    ]);
    expect(top(search, 'shelve my work', 1)).toEqual(['beta/save_work']);
    // Its one holder gone, no tool holds "shelve": the words it was used like go with it.
    search.removeServer('ide');
    expect(top(search, 'shelve my work', 1)).toEqual(['alpha/save_work']);
  });
});
