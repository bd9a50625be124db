/**
 * Labelled queries for the search benchmark, written as a user would ask, not copied from the
 * tool descriptions. Each names the tools that answer it (`server/tool`); a query counts as found
 * at k when one of them is among the first k results.
 */
export interface LabelledQuery {
  query: string;
  relevant: string[];
}

export const LABELLED_QUERIES: LabelledQuery[] = [
  // The reference servers.
  { query: 'add two numbers', relevant: ['everything/get-sum'] },
  { query: 'repeat back exactly what I typed', relevant: ['everything/echo'] },
  { query: 'show me the environment variables the server sees', relevant: ['everything/get-env'] },
  { query: 'compress a file with gzip', relevant: ['everything/gzip-file-as-resource'] },
  { query: 'give me a small sample picture', relevant: ['everything/get-tiny-image'] },
  { query: 'run a slow job that reports its progress', relevant: ['everything/trigger-long-running-operation'] },
  { query: 'remember that Alice works at Acme', relevant: ['memory/create_entities', 'memory/add_observations'] },
  { query: 'note that Bob is married to Carol', relevant: ['memory/create_relations'] },
  { query: 'forget everything you know about Dave', relevant: ['memory/delete_entities'] },
  { query: 'what do you remember about my projects', relevant: ['memory/search_nodes', 'memory/read_graph', 'memory/open_nodes'] },
  { query: 'dump the whole knowledge graph', relevant: ['memory/read_graph'] },
  { query: "what's written in notes.txt", relevant: ['filesystem/read_text_file', 'filesystem/read_file'] },
  { query: 'save this text as a new file called todo.md', relevant: ['filesystem/write_file'] },
  { query: 'make a new folder for the reports', relevant: ['filesystem/create_directory'] },
  { query: 'rename draft.txt to final.txt', relevant: ['filesystem/move_file'] },
  {
    query: 'what files are in my project folder',
    relevant: ['filesystem/list_directory', 'filesystem/list_directory_with_sizes', 'filesystem/directory_tree'],
  },
  { query: 'how big is this file and when was it last changed', relevant: ['filesystem/get_file_info'] },
  { query: 'find all the markdown files under docs', relevant: ['filesystem/search_files'] },
  { query: 'change one line in my config file', relevant: ['filesystem/edit_file'] },
  { query: 'which folders am I allowed to touch', relevant: ['filesystem/list_allowed_directories'] },
  // The synthetic catalogue: the user names the service, as people do.
  { query: 'open a bug report in our GitHub repo about the login crash', relevant: ['github/create_issue'] },
  { query: 'merge the pull request on gitlab', relevant: ['gitlab/merge_pull_request'] },
  { query: "post 'deploy done' in the releases channel on Slack", relevant: ['slack/send_message'] },
  { query: 'privately message my teammate on Discord', relevant: ['discord/send_direct_message'] },
  { query: 'email the quarterly report to my manager using Gmail', relevant: ['gmail/send_email'] },
  { query: 'find the mails from my landlord in Outlook', relevant: ['outlook-mail/search_emails'] },
  { query: 'book a meeting with Sam next Tuesday in Google Calendar', relevant: ['google-calendar/create_event'] },
  { query: 'when am I free this week according to my Outlook calendar', relevant: ['outlook-calendar/find_free_slots'] },
  { query: 'what columns does the orders table have in postgres', relevant: ['postgres/describe_table'] },
  { query: 'run a SQL select against the MySQL database', relevant: ['mysql/run_query'] },
  { query: 'put this photo in my Dropbox', relevant: ['dropbox/upload_file'] },
  { query: 'give Anna access to the budget document on Google Drive', relevant: ['google-drive/share_file'] },
  { query: 'what exceptions are our users hitting according to Sentry', relevant: ['sentry/list_recent_errors'] },
  { query: 'who is on call right now in PagerDuty', relevant: ['pagerduty/list_on_call'] },
  { query: "give the customer their money back for the last Stripe charge", relevant: ['stripe/refund_payment'] },
  { query: "stop this customer's PayPal subscription", relevant: ['paypal/cancel_subscription'] },
  { query: 'answer the support ticket in Zendesk', relevant: ['zendesk/reply_to_ticket'] },
  { query: 'add a line to the budget spreadsheet in Google Sheets', relevant: ['google-sheets/append_row'] },
  { query: 'restart the api service on Kubernetes', relevant: ['kubernetes/restart_service'] },
  { query: "undo yesterday's Vercel deploy", relevant: ['vercel/rollback_deployment'] },
  { query: 'why did the Jenkins build fail', relevant: ['jenkins/get_build_logs'] },
  { query: 'search the internet for news about MCP', relevant: ['brave-search/search_news', 'tavily/search_news', 'brave-search/web_search', 'tavily/web_search'] },
  { query: 'grab a screenshot of example.com with puppeteer', relevant: ['puppeteer/take_screenshot'] },
  { query: 'how do I drive from Berlin to Hamburg on Google Maps', relevant: ['google-maps/get_directions'] },
  { query: 'will it rain tomorrow in Lyon', relevant: ['openweather/get_forecast', 'google-maps/get_forecast', 'openstreetmap/get_forecast'] },
  { query: 'put this paragraph into German with DeepL', relevant: ['deepl/translate_text'] },
  { query: 'read this text out loud with an ElevenLabs voice', relevant: ['elevenlabs/text_to_speech'] },
  { query: 'write down what was said in the meeting recording', relevant: ['whisper/transcribe_audio'] },
  { query: 'tweet this tomorrow morning', relevant: ['twitter/schedule_post'] },
  { query: 'write up the meeting notes as a Notion page', relevant: ['notion/create_page'] },
  { query: 'move the Jira ticket to done', relevant: ['jira/update_task_status'] },
  { query: 'switch off the living room lights', relevant: ['philips-hue/turn_off_light', 'home-assistant/turn_off_light'] },
  { query: 'play my workout playlist on Spotify', relevant: ['spotify/play_playlist'] },
  { query: "what's Apple's share price today", relevant: ['yahoo-finance/get_quote', 'alpha-vantage/get_quote'] },
  { query: 'show the unshipped orders in my Shopify store', relevant: ['shopify/list_orders'] },
  { query: 'book a week of vacation in BambooHR', relevant: ['bamboohr/request_time_off'] },
];
