/**
 * Words for ranking: identifiers split across camelCase, snake_case, kebab-case and dots,
 * lower-cased (an acronym's plural, "URLs", read as the acronym; a possessive 's dropped), common
 * filler words dropped, and a light suffix stemming so "files", "listing", "created" and
 * "creation" meet "file", "list" and "create".
 */

const STOPWORDS = new Set(
  (
    'a an the to of for in on at by with from into onto and or but is are be was were been it its this that these those ' +
    'i me my we us our you your he she they them their please can could would should will shall do does did done ' +
    'what which who whom how when where why there here some any all each every one via as if so than then just also ' +
    'want need like let lets get some thing things about over up out'
  ).split(' '),
);
// "get" is filler in a sentence ("get me the weather") but a verb in tool names: kept in names by `identifierTokens`.

/** Splits an identifier or a sentence into lower-case words: getUserById → get user by id, list_issues → list issues. */
export function splitWords(text: string): string[] {
  return text
    .replace(/(\w)['\u2019]s\b/g, '$1') // possessive: "the user's profile"
    .replace(/\b([A-Z]{2,})s\b/g, '$1') // an acronym's plural: URLs, IDs, PRs
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    // A lookahead, not `([A-Z]+)([A-Z][a-z])`: that backtracks over a run of capitals at every one of them,
    // so a description of a few MB of capitals froze the process for hours.
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** A vowel, or a "y" after a consonant as in "dry": Porter's test that a stem is still a word. */
const hasVowel = (word: string) => /[aeiou]|[^aeiou]y/.test(word);

/**
 * WordNet 3.1's verbs ending in a doubled consonant other than l, s or z (index.verb): their "-ed"
 * and "-ing" forms keep the double ("adding" is "add", not Porter's "ad"). Checked against WordNet by
 * test/stem-doubled-consonant.test.ts.
 */
export const DOUBLED_VERBS: ReadonlySet<string> = new Set(
  (
    'add babbitt biff birr bitt bluff boycott buff burr butt chaff chirr chuff churr conn crossruff cuff doff ' +
    'ebb eff egg enfeoff err fluff handcuff headbutt huff luff miff muff nett off overstuff puff purr putt ' +
    'quaff rebuff riff ruff schnorr sclaff scoff scuff shirr shnorr sniff snuff staff stuff tariff unstuff ' +
    'whiff whirr'
  ).split(' '),
);

/** A light stemmer: plural and verb endings, and a final "e", so forms of one word meet. */
export function stem(word: string): string {
  let stemmed = word;
  if (stemmed.length > 4 && stemmed.endsWith('ies')) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.length > 4 && /(ss|x|z|ch|sh)es$/.test(stemmed)) stemmed = stemmed.slice(0, -2);
  else if (stemmed.length > 3 && stemmed.endsWith('s') && !/(ss|us|is)$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  // Derived nouns meet their word: relationship → relation, creation and deletion → create, delete.
  if (stemmed.length > 8 && stemmed.endsWith('ship')) stemmed = stemmed.slice(0, -4);
  if (stemmed.length > 7 && stemmed.endsWith('tion')) return stemmed.slice(0, -3);
  // As Porter's: an ending is taken only from a word that keeps a vowel, so "string" and "spring" stay whole ("str", "spr" were wrong).
  const ending =
    stemmed.length > 5 && stemmed.endsWith('ing') && hasVowel(stemmed.slice(0, -3))
      ? 'ing'
      : stemmed.length > 4 && stemmed.endsWith('ed') && !stemmed.endsWith('eed') && hasVowel(stemmed.slice(0, -2))
        ? 'ed'
        : '';
  stemmed = stemmed.slice(0, stemmed.length - ending.length);
  // Porter's step 1b: the doubled consonant an ending leaves is undone whatever the length, so "mapping", "setting" and "logged" meet "map", "set", "log" (were "mapp", "sett", "logg").
  if (ending !== '' && /([bcdfghjkmnpqrtvwxy])\1$/.test(stemmed) && !DOUBLED_VERBS.has(stemmed)) stemmed = stemmed.slice(0, -1);
  // Porter's "-eed" is not a past "-ed": "speed" stays whole, "proceed" loses its "d" as "proceeded" and "proceeding" do (were "spe", "proc").
  if (stemmed.endsWith('eed') && hasVowel(stemmed.slice(0, -3))) stemmed = stemmed.slice(0, -1);
  // Porter's step 1c: a final "y" after a vowelled stem is "i", so "copy" meets "copied" and "movies" meets "movie" (were "copy"/"copi", "movy"/"movi").
  if (stemmed.endsWith('y') && hasVowel(stemmed.slice(0, -1))) stemmed = `${stemmed.slice(0, -1)}i`;
  if (stemmed.length > 4 && /([b-df-hj-np-tv-z])\1$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  if (stemmed.length > 4 && stemmed.endsWith('e')) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/** Short forms read as the word they stand for, in tool texts and queries alike: "repo" meets "repository". */
const SHORT_FORMS = new Map(
  Object.entries({
    repo: 'repository',
    dir: 'directory',
    db: 'database',
    env: 'environment',
    info: 'information',
    msg: 'message',
    img: 'image',
    pic: 'picture',
    config: 'configuration',
    js: 'javascript',
    auth: 'authentication',
  }).flatMap(([short, long]) => [[stem(short), stem(long)]]),
);

function normalized(word: string): string {
  const stemmed = stem(word);
  return SHORT_FORMS.get(stemmed) ?? stemmed;
}

/** Words of free text (a query, a description): filler dropped. */
export function textTokens(text: string): string[] {
  return splitWords(text)
    .filter((word) => !STOPWORDS.has(word))
    .map(normalized);
}

/** Words of an identifier (a tool, server or parameter name): every part counts, filler-looking ones too. */
export function identifierTokens(name: string): string[] {
  return splitWords(name).map(normalized);
}
