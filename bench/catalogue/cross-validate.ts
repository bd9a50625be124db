/**
 * Leave-one-set-out cross-validation of the learned word associations (associations.ts): for each
 * set tuned on, associations learned from the other four, the set ranked without and with them.
 * Prints per fold the queries found first and in five (against each set's 70), for each setting
 * given: the association weight (ASSOCIATION_WEIGHT), the least support, the least PMI and the
 * words kept per query word. With --nested, the setting for each fold is chosen among those given
 * by the same cross-validation over the other four sets alone, so that the fold's figures are not
 * those of the setting that did best on it. The blind set is never learned from nor ranked
 * (trainingPairs refuses it).
 *
 * npx tsx bench/catalogue/cross-validate.ts [--weight 0.5,1] [--support 2,3] [--pmi 0.69,1.6] [--per-word 2,5] [--nested]
 */
import { ASSOCIATION_WEIGHT, type Associations } from '../../src/search/tool-search.js';
import { recallOf } from '../lib/recall.js';
import { LEARNING, learnAssociations, type LearningOptions } from './associations.js';
import { labelledQueries, QUERY_SET_HISTORY, QUERY_SETS, type QuerySet } from './catalogue.js';
import { catalogueSearch, toolRanking } from './ranking.js';

function listed(flag: string, fallback: number[]): number[] {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1]!.split(',').map(Number) : fallback;
}

interface Setting extends LearningOptions {
  weight: number;
}

const settings: Setting[] = listed('--support', [LEARNING.minSupport]).flatMap((minSupport) =>
  listed('--pmi', [LEARNING.minPmi]).flatMap((minPmi) =>
    listed('--per-word', [LEARNING.perWord]).flatMap((perWord) => listed('--weight', [ASSOCIATION_WEIGHT]).map((weight) => ({ minSupport, minPmi, perWord, weight }))),
  ),
);
const describe = ({ minSupport, minPmi, perWord, weight }: Setting) => `support ${minSupport} pmi ${minPmi.toFixed(2)} per word ${perWord} weight ${weight}`;

const TUNED = QUERY_SETS.filter((set) => QUERY_SET_HISTORY[set].tunedOn);

/** The associations with every strength scaled: a weight other than ASSOCIATION_WEIGHT, tried without changing it. */
const scaled = (associations: Associations, factor: number): Associations =>
  new Map([...associations].map(([word, list]) => [word, list.map(([other, strength]) => [other, strength * factor] as const)]));

/** Queries of `held` found first and in five, with the associations `setting` learns from `from` (none: without). */
async function found(held: QuerySet, from: readonly QuerySet[], setting?: Setting): Promise<[number, number]> {
  const queries = labelledQueries(held);
  const associations = setting && scaled(learnAssociations(from, setting), setting.weight / ASSOCIATION_WEIGHT);
  const { recall1, recall5 } = await recallOf(toolRanking(catalogueSearch({ associations })), queries);
  return [Math.round(recall1 * queries.length), Math.round(recall5 * queries.length)];
}

const others = (sets: readonly QuerySet[], held: QuerySet) => sets.filter((set) => set !== held);
const signed = (change: number) => `${change >= 0 ? '+' : ''}${change}`;

const baseline = new Map<QuerySet, [number, number]>();
for (const set of TUNED) baseline.set(set, await found(set, []));
console.log(`without: ${TUNED.map((set) => `${set} ${baseline.get(set)!.join('/')}`).join(', ')}`);

function fold(held: QuerySet, [at1, at5]: [number, number]): string {
  const [base1, base5] = baseline.get(held)!;
  return `${held} ${at1}/${at5} (${signed(at1 - base1)}/${signed(at5 - base5)})`;
}

if (process.argv.includes('--nested')) {
  const folds: string[] = [];
  for (const held of TUNED) {
    const training = others(TUNED, held);
    let best: { setting: Setting; gain: number } | undefined;
    for (const setting of settings) {
      let gain = 0;
      for (const inner of training) gain += (await found(inner, others(training, inner), setting))[0] - baseline.get(inner)![0];
      if (!best || gain > best.gain) best = { setting, gain };
    }
    folds.push(`${fold(held, await found(held, training, best!.setting))} with ${describe(best!.setting)} (inner +${best!.gain} at 1)`);
    console.log(folds.at(-1));
  }
} else {
  for (const setting of settings) {
    const folds: string[] = [];
    for (const held of TUNED) folds.push(fold(held, await found(held, others(TUNED, held), setting)));
    console.log(`${describe(setting)}: ${folds.join(', ')}`);
  }
}
