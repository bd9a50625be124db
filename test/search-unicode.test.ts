/**
 * Tool names and descriptions come in every script, and a person types a query as their keyboard
 * writes it: Japanese without spaces, German ß or "ss", an accent composed or as a combining mark,
 * Turkish dotted and dotless i. The search finds the same tools whichever way the words are written.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ToolSearch } from '../src/search/index.js';

const tool = (name: string, description: string, properties: Record<string, string> = {}): Tool => ({
  name,
  description,
  inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([key, text]) => [key, { type: 'string', description: text }])) },
});

function catalogue(): ToolSearch {
  const search = new ToolSearch();
  search.setServer({ name: '天気', description: '日本の天気予報サーバー' }, [
    tool('天気予報を取得', '指定した都市の天気予報を取得します', { 都市: '都市名' }),
    tool('地震情報', '最新の地震情報を返します'),
  ]);
  search.setServer({ name: 'café', description: 'Café-Bestellungen für München' }, [
    tool('bestellung_aufgeben', 'Eine Bestellung im Café aufgeben. Größe wählen.', { größe: 'Größe des Getränks' }),
    tool('straße_suchen', 'Sucht eine Straße in München'),
    tool('kaffee_löschen', 'Löscht eine Bestellung'),
  ]);
  search.setServer({ name: 'عربي', description: 'خادم الطقس' }, [tool('الطقس', 'احصل على حالة الطقس في مدينة'), tool('ترجمة', 'ترجمة النص إلى العربية')]);
  search.setServer({ name: 'ev', description: 'Ev otomasyonu' }, [tool('ısık_aç', 'Işığı açar (Türkçe)')]);
  search.setServer({ name: '한국', description: '한국어 도구' }, [tool('날씨예보', '오늘의 날씨예보를 알려줍니다')]);
  return search;
}

const found = (search: ToolSearch, query: string) => search.searchTools(query, 3).map(({ server, tool }) => `${server}/${tool.name}`);

describe('search that reads text beyond ASCII', () => {
  it('a Japanese sentence written without spaces finds the tool that shares its words', () => {
    const search = catalogue();
    expect(found(search, '東京の天気を教えて')[0]).toBe('天気/天気予報を取得');
    expect(found(search, '地震')[0]).toBe('天気/地震情報');
  });

  it('Korean words find a tool whose description holds them inside a longer word', () => {
    expect(found(catalogue(), '날씨')[0]).toBe('한국/날씨예보');
  });

  it('an Arabic phrase finds the tool described by it', () => {
    expect(found(catalogue(), 'ترجمة النص')[0]).toBe('عربي/ترجمة');
  });

  it('German ß and "ss", in either case, are one letter pair', () => {
    const search = catalogue();
    for (const query of ['strasse', 'STRASSE', 'Straße']) expect(found(search, query)[0], query).toBe('café/straße_suchen');
    for (const query of ['Größe', 'GRÖSSE', 'grösse']) {
      // Not through fragments: "Größe" once matched "gr" and "e", and so ranked ısık_aç ("Türkçe").
      expect(found(search, query)[0], query).toBe('café/bestellung_aufgeben');
      expect(found(search, query), query).not.toContain('ev/ısık_aç');
    }
  });

  it('a word without its accent, or with the accent as a combining mark, finds the accented word', () => {
    const search = catalogue();
    const composed = found(search, 'Café');
    expect(composed[0]).toBe('café/bestellung_aufgeben');
    expect(found(search, 'Cafe\u0301')).toEqual(composed);
    expect(found(search, 'cafe')).toEqual(composed);
    expect(found(search, 'mu\u0308nchen')).toEqual(found(search, 'münchen'));
  });

  it('Turkish dotted and dotless i meet the plain i in any case', () => {
    const search = catalogue();
    for (const query of ['IŞIK', 'ISIK', 'ışık', 'İŞİK']) expect(found(search, query)[0], query).toBe('ev/ısık_aç');
  });

  it('full-width letters and digits read as the ordinary ones', () => {
    expect(found(catalogue(), 'ｓｔｒａｓｓｅ')[0]).toBe('café/straße_suchen');
  });

  it("a tool's exact name is found however its accents and case are written", () => {
    const search = new ToolSearch();
    search.setServer({ name: 'shop', description: 'A coffee shop' }, [tool('café', 'Orders a drink'), tool('ısık_aç', 'Turns the light on'), tool('menu', 'Lists the drinks')]);
    const exact = (query: string) => search.searchTools(query, 3).filter(({ score }) => score >= 1e9).map(({ tool }) => tool.name);
    expect(exact('cafe\u0301')).toEqual(['café']);
    expect(exact('CAFÉ')).toEqual(['café']);
    expect(exact('İSIK_AÇ')).toEqual(['ısık_aç']);
    expect(exact('shop/Cafe\u0301')).toEqual(['café']);
  });

  it('an emoji is a word: with or without its variation selector, alone or beside words', () => {
    const search = new ToolSearch();
    search.setServer({ name: 'sky', description: 'Weather and calendar' }, [
      tool('forecast', '🌦️ Forecast for a city'),
      tool('agenda', 'Lists the events 📅 of a day', { day: 'The day, e.g. tomorrow' }),
      tool('alerts', 'Storm alerts ⛈ for a region'),
    ]);
    expect(found(search, '🌦️')[0]).toBe('sky/forecast');
    expect(found(search, '🌦')[0]).toBe('sky/forecast');
    expect(found(search, '📅 tomorrow')[0]).toBe('sky/agenda');
    expect(found(search, '⛈️')[0]).toBe('sky/alerts');
  });

  it('an emoji in a heading costs a long description none of its words', () => {
    // Counted as words, hubspot's "🎯 Purpose:" headings pushed the last words of its long descriptions past the field's cap.
    const search = new ToolSearch();
    const long = (heading: string) => `${heading} ${Array.from({ length: 298 }, (_, at) => `filler${at}`).join(' ')} zeppelin`;
    search.setServer({ name: 'plain', description: 'Records' }, [tool('plain_record', long('Purpose:'))]);
    search.setServer({ name: 'adorned', description: 'Records' }, [tool('adorned_record', long('🎯 Purpose:'))]);
    const [first, second] = search.searchTools('zeppelin', 2);
    expect(second?.score).toBeCloseTo(first!.score, 9);
  });

  it('a Cyrillic letter made with a mark stays a letter of its own: й is not и, but a stress mark is dropped', () => {
    const search = new ToolSearch();
    search.setServer({ name: 'аптека', description: 'Аптека' }, [tool('заказ_йода', 'Заказывает йод'), tool('иод_датчик', 'Читает иод датчика'), tool('молоко', 'Заказывает молоко')]);
    for (const query of ['йод', 'ЙОД', 'и\u0306од']) expect(found(search, query), query).toEqual(['аптека/заказ_йода']);
    expect(found(search, 'иод')).toEqual(['аптека/иод_датчик']);
    expect(found(search, 'моло\u0301ко')[0]).toBe('аптека/молоко');
    // Latin and Greek marks are accents still.
    expect(found(search, 'Ελληνικα')).toEqual(found(search, 'Ελληνικά'));
  });

  it('a Russian word written with е finds the word written with ё, but ё finds only ё: ёж is found by еж, ель not by ёль', () => {
    const search = new ToolSearch();
    search.setServer({ name: 'лес', description: 'Лес' }, [tool('найти_ёжика', 'Находит ёжика в лесу'), tool('ель_список', 'Перечисляет ели и ёлки'), tool('заказ_йода', 'Заказывает йод')]);
    search.setServer({ name: 'лес-ёлка', description: 'Ёлочные игрушки' }, []);
    for (const query of ['ёжика', 'ежика', 'ЕЖИКА']) expect(found(search, query), query).toEqual(['лес/найти_ёжика']);
    expect(found(search, 'елки')).toEqual(['лес/ель_список']);
    expect(found(search, 'ёли')).toEqual([]);
    expect(found(search, 'иод')).toEqual([]);
    expect(search.searchServers('елочные', 1).map(({ name }) => name)).toEqual(['лес-ёлка']);
  });

  it('a description in Japanese as well as English ranks as its English alone for an English query', () => {
    // Its pairs of characters are not words: counted in the description's length, they sank such a tool under its English-only peers.
    const search = new ToolSearch();
    const english = 'Fetches a web page as markdown, with its images.';
    search.setServer({ name: 'plain', description: 'Web tools' }, [tool('fetch_page', english)]);
    search.setServer({ name: 'both', description: 'Web tools' }, [tool('fetch_page', `${english}\n画像取得に強いフェッチツール。記事本文をマークダウン化し、ページ内の画像を抽出・最適化して返します。`)]);
    const [first, second] = search.searchTools('fetch a page as markdown', 2);
    expect(second!.score).toBeCloseTo(first!.score, 9);
  });
});
