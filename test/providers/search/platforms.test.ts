import { describe, expect, it } from 'vitest';
import {
  answerEngineSearch,
  approximateLocation,
  clampLimit,
  countryCode,
  countryName,
  dataForSeoLanguage,
  googleHl,
  parseLocation,
  splitLanguage,
} from '../../../src/providers/search/platforms.ts';
import type { Answer, AnswerEngine, AnswerOptions, AnswerPlatform } from '../../../src/providers/types.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import { fixedClock } from '../../helpers/fake-providers/server.ts';

describe('locale mapping', () => {
  it('splits language tags into language and region', () => {
    expect(splitLanguage('en-US')).toEqual({ language: 'en', region: 'us' });
    expect(splitLanguage('pt_BR')).toEqual({ language: 'pt', region: 'br' });
    expect(splitLanguage('zh-Hant-TW')).toEqual({ language: 'zh', region: 'tw' });
    expect(splitLanguage('de')).toEqual({ language: 'de', region: null });
    expect(splitLanguage(undefined)).toEqual({ language: 'en', region: null });
  });

  it('spells Google hl and DataForSEO language codes', () => {
    expect(googleHl('en-US')).toBe('en');
    expect(googleHl('zh-Hant-TW')).toBe('zh-tw');
    expect(googleHl('zh-CN')).toBe('zh-cn');
    expect(dataForSeoLanguage('zh-CN')).toBe('zh-CN');
    expect(dataForSeoLanguage('fr-CA')).toBe('fr');
  });

  it('maps countries both ways, canonicalising retired codes', () => {
    expect(countryName('US')).toBe('United States');
    expect(countryName('ZZ')).toBeNull();
    expect(countryCode('United Kingdom')).toBe('gb');
    expect(countryCode('uk')).toBe('gb');
    expect(countryCode('Germany')).toBe('de');
    expect(countryCode('USA')).toBe('us');
    expect(countryCode('Texas')).toBeNull();
  });

  it('parses free-form locations and builds approximate user locations', () => {
    expect(parseLocation('Austin, Texas, United States')).toEqual({
      parts: ['Austin', 'Texas', 'United States'],
      city: 'Austin',
      region: 'Texas',
      country: 'us',
    });
    expect(parseLocation('Berlin')).toEqual({ parts: ['Berlin'], city: 'Berlin', region: null, country: null });
    expect(parseLocation('  ')).toBeNull();
    expect(approximateLocation('Austin, Texas, United States', 'en-US')).toEqual({
      country: 'US',
      region: 'Texas',
      city: 'Austin',
    });
    expect(approximateLocation(undefined, 'de-DE')).toEqual({ country: 'DE' });
    expect(approximateLocation(undefined, 'en')).toBeUndefined();
  });

  it('clamps limits', () => {
    expect(clampLimit(undefined)).toBe(10);
    expect(clampLimit(0)).toBe(1);
    expect(clampLimit(500, 100)).toBe(100);
  });
});

describe('answerEngineSearch', () => {
  const asked: Array<{ prompt: string; platform: AnswerPlatform; options: AnswerOptions | undefined }> = [];
  const engine: AnswerEngine = {
    name: 'stub-engine',
    platforms: ['chatgpt'],
    async ask(prompt, platform, options): Promise<Answer> {
      asked.push({ prompt, platform, options });
      return {
        provider: 'stub-engine',
        platform,
        model: 'm',
        text: 'answer',
        citations: Array.from({ length: 12 }, (_, i) => ({
          url: `https://s${i}.example/`,
          title: i === 0 ? null : `S${i}`,
        })),
        fetchedAt: 'x',
      };
    },
  };

  it('turns cited URLs into ranked results and passes locale and key through', async () => {
    const search = answerEngineSearch(engine, 'chatgpt', fixedClock);
    expect(search.platforms).toEqual(['chatgpt']);
    const res = await search.search('best crm', {
      platform: 'chatgpt',
      language: 'en-US',
      location: 'Austin',
      idempotencyKey: 'k1',
      limit: 3,
    });
    expect(asked[0]).toEqual({
      prompt: 'best crm',
      platform: 'chatgpt',
      options: { language: 'en-US', location: 'Austin', idempotencyKey: 'k1' },
    });
    expect(res).toEqual({
      provider: 'stub-engine',
      platform: 'chatgpt',
      query: 'best crm',
      location: 'Austin',
      language: 'en-US',
      fetchedAt: '2025-05-26T10:00:00.000Z',
      results: [
        { position: 1, url: 'https://s0.example/', title: 'https://s0.example/', snippet: '' },
        { position: 2, url: 'https://s1.example/', title: 'S1', snippet: '' },
        { position: 3, url: 'https://s2.example/', title: 'S2', snippet: '' },
      ],
    });
    expect((await search.search('q', { platform: 'chatgpt' })).results).toHaveLength(10);
  });

  it('refuses other platforms', async () => {
    const search = answerEngineSearch(engine, 'chatgpt');
    await expect(search.search('q', { platform: 'claude' })).rejects.toBeInstanceOf(ProviderError);
  });
});
