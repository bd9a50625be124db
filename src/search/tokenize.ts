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
  // ASCII text (nearly every tool) keeps the one-pass split: the folding below costs it nothing.
  if (!NON_ASCII.test(text)) {
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
  const words =
    folded(
      text
        .normalize('NFKC')
        .replace(/(\w)['\u2019]s\b/g, '$1')
        .replace(/\b([A-Z]{2,})s\b/g, '$1')
        .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
        .replace(/(\p{Lu})(?=\p{Lu}\p{Ll})/gu, '$1 '),
    ).match(WORD_OR_EMOJI) ?? [];
  // A run of marks alone (an emoji's variation selector, a stray accent) is no word.
  const spaced = words.filter((word) => word.charCodeAt(0) < 0x80 || LETTER_OR_DIGIT_OR_EMOJI.test(word));
  return spaced.some((word) => CJK_RUN.test(word)) ? spaced.flatMap(cjkBigrams) : spaced;
}

const NON_ASCII = /[^\x00-\x7f]/;
/**
 * Marks that only accent a letter (Latin and Greek diacritics, Arabic short vowels), and variation
 * selectors: "café" and "cafe" are one word to a searcher. On a Cyrillic letter a mark makes another
 * letter (й is not и, ё not е, ї not і, Macedonian ѓ not г) and is kept, but for the acute and grave
 * on a vowel, which mark stress (моло́ко is молоко). A query's е still meets ё (parseQuery's withYo).
 */
const ACCENTS = /(\p{sc=Cyrillic})?([\u0300-\u036f\u064b-\u065f\u0670\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f]+)/gu;
const CYRILLIC_VOWEL = /[аеиоуыэюяіѣєѵ]/;
const STRESS = /[\u0300\u0301]/g;
const unaccented = (_: string, cyrillic: string | undefined, marks: string): string =>
  cyrillic === undefined ? '' : cyrillic + (CYRILLIC_VOWEL.test(cyrillic) ? marks.replace(STRESS, '') : marks);

/**
 * Case and accents folded alike in tool texts and queries: Turkish dotted and dotless i meet "i"
 * (toLowerCase alone turns İ into i + a dot and keeps ı), ß meets "ss", accents dropped. NFC after
 * the accents go, so Hangul syllables that NFD split into letters are whole again.
 */
function folded(text: string): string {
  return text
    .replace(/[İı]/g, 'i')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(ACCENTS, unaccented)
    .normalize('NFC');
}

/** An identifier (a tool's exact name) as the exact-name lookup keys it: NFKC, case and accents folded as words are. */
export function foldedName(name: string): string {
  return NON_ASCII.test(name) ? folded(name.normalize('NFKC')) : name.toLowerCase();
}

/**
 * An emoji (an Extended_Pictographic character; its variation selector, skin tone and joiners are
 * not part of it) is a word of its own: "🌦️" finds the tool that says it. © and ® are pictographic to
 * Unicode but a legal notice, not a word anyone searches by.
 */
const EMOJI = '(?![\\u00a9\\u00ae])\\p{Extended_Pictographic}';
const WORD_OR_EMOJI = new RegExp(`${EMOJI}|[\\p{L}\\p{M}\\p{N}]+`, 'gu');
const LETTER_OR_DIGIT_OR_EMOJI = new RegExp(`[\\p{L}\\p{N}]|${EMOJI}`, 'u');
const CJK_RUN = /([\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]+)/u;

/**
 * Chinese, Japanese and Korean write words without spaces between them: a run of their letters is
 * read as its overlapping pairs of characters, so "東京の天気を教えて" shares "天気" with "天気予報を取得"
 * (pairs need no dictionary and treat the three scripts alike; Intl.Segmenter's word split is the
 * alternative, and at 762 tools it sank the Japanese-described fetch tool as the pairs did before
 * `spacedLength`).
 */
function cjkBigrams(word: string): string[] {
  if (!CJK_RUN.test(word)) return [word];
  const words: string[] = [];
  for (const [at, part] of word.split(CJK_RUN).entries()) {
    if (at % 2 === 0) {
      if (part.length > 0) words.push(part);
      continue;
    }
    const letters = [...part];
    if (letters.length === 1) words.push(part);
    for (let i = 0; i + 1 < letters.length; i++) words.push(letters[i]! + letters[i + 1]!);
  }
  return words;
}

/**
 * A field's length in words for its normalisation: pairs of CJK characters and emoji are left out.
 * A run of n characters gives n - 1 pairs, several per word, and counting them would read a tool
 * described in Japanese as far wordier than its English twin, sinking it under every English query
 * its English words answer (at 762 tools, a fetch tool described in Japanese and English lost its
 * place at 1). An emoji adorns a sentence ("🔍 Search the web"): counted here and in word contexts,
 * the catalogue's 61 emoji moved 67 of the 1,050 tuned queries' orders at 762 tools.
 */
export function spacedLength(words: readonly string[]): number {
  let length = 0;
  for (const word of words) if (!isUnspaced(word)) length++;
  return length;
}

/** Whether a word is a piece of a CJK run (a pair of its characters, or a lone one) or an emoji, not a word set apart by spaces. */
export const isUnspaced = (word: string): boolean => word.charCodeAt(0) >= 0x80 && UNSPACED_START.test(word);
const UNSPACED_START = new RegExp(`^(?:[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Hangul}]|${EMOJI})`, 'u');

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
