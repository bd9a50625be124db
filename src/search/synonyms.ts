/**
 * Words people use for what tool names call otherwise ("bug" for issue, "remove" for delete).
 * A query term also looks for its group's other words, at a lower weight than the word itself.
 * General software vocabulary only: no group names a particular server or tool.
 */
import { stem } from './tokenize.js';

const GROUPS = [
  'add sum plus total',
  'create make new add open start write compose',
  'delete remove erase drop destroy trash forget',
  'get fetch retrieve read show view open print display',
  'list show enumerate browse',
  'update edit modify change set patch',
  'search find query lookup look',
  'send post message notify',
  'write save store put',
  'upload put attach',
  'move rename',
  'copy duplicate clone',
  'share access permission grant',
  'refund money back reimburse',
  'rollback undo revert previous',
  'issue bug ticket',
  'job task operation process',
  'long slow running',
  'small tiny little',
  'message chat dm',
  'email mail inbox',
  'file document doc',
  'text txt plain',
  'folder directory dir',
  'repo repository project',
  'pr pull merge',
  'user member person people account',
  'image picture photo',
  'weather forecast temperature',
  'translate translation language german french spanish english italian japanese chinese',
  'transcribe transcript recording dictation',
  'tweet post twitter',
  'schedule later tomorrow',
  'quote price stock ticker',
  'event meeting appointment calendar',
  'error exception crash',
  'deploy release ship',
  'run execute launch invoke evaluate',
  'stop kill terminate halt cancel',
  'remember memory memorize knowledge recall know',
  'note observation fact',
  'relation relationship link connection',
  'info metadata detail stat',
  'echo repeat',
  'web internet online website',
  'print display output',
  'draw generate render',
  'env environment variable',
  'log logging history',
  'alert incident page',
  'pay charge payment invoice bill',
  'customer client contact',
  'sheet spreadsheet row cell',
  'table row record',
  'database db sql',
  'tree hierarchy recursive',
  'comment reply note answer',
  'vacation holiday leave',
  // Families read off the catalogue's own tool descriptions (what tools call things), general
  // software and data vocabulary: each word is one a user could say for the others.
  'folder directory dir path',
  'record row entry item',
  'field column property attribute',
  'location place address position coordinates latitude longitude geocode',
  'route directions navigate travel',
  'nearby near around close',
  'click press tap',
  'type fill input enter',
  'navigate visit go browse url',
  'screenshot capture snapshot',
  'label tag category',
  'assign assignee owner',
  'status state progress',
  'channel room conversation',
  'organization company org business workspace',
  'team group',
  'phone call dial voice',
  'sms text message',
  'video clip movie',
  'transcript caption subtitle',
  'documentation docs reference manual guide',
  'library package module dependency',
  'vector embedding similarity semantic',
  'pipeline workflow build ci',
  'glossary terminology dictionary',
  'summary summarize overview',
  'research investigate study',
  'reason think reflect',
];

function buildSynonyms(): Map<string, string[]> {
  const synonyms = new Map<string, Set<string>>();
  for (const group of GROUPS) {
    const words = group.split(' ').map(stem);
    for (const word of words) {
      const related = synonyms.get(word) ?? new Set<string>();
      for (const other of words) if (other !== word) related.add(other);
      synonyms.set(word, related);
    }
  }
  return new Map([...synonyms].map(([word, related]) => [word, [...related]]));
}

const SYNONYMS = buildSynonyms();

/** The stemmed words related to a stemmed word. */
export function synonymsOf(token: string): readonly string[] {
  return SYNONYMS.get(token) ?? [];
}
