import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderPage } from '../../src/pipeline/page-document.js';

const GERMAN =
  'Die Stadtverwaltung hat am Montag beschlossen, die Straßenbahnlinie bis zum neuen Wohngebiet zu verlängern. ' +
  'Die Bauarbeiten sollen im Frühjahr beginnen und werden voraussichtlich zwei Jahre dauern, sagte die Sprecherin.';

/** A page's metadata.language as the content pipeline gives it. */
function languageOf(html: string, headers: Record<string, string> = {}): string {
  const rendered = renderPage(
    {
      url: 'https://example.test/page',
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
      body: Buffer.from(html),
      redirects: [],
    },
    {
      sourceUrl: 'https://example.test/page',
      formats: ['markdown'],
      onlyMainContent: true,
      removeBase64Images: true,
      detectionReason: null,
    },
  );
  return rendered.document.metadata.language;
}

describe('a page language', () => {
  test('is the one the page declares, then its Content-Language, then the one its text reads as', () => {
    const body = `<body><article><h1>Nachrichten</h1><p>${GERMAN}</p><p>${GERMAN}</p></article></body>`;
    assert.equal(languageOf(`<html lang="fr"><head><title>t</title></head>${body}</html>`), 'fr');
    assert.equal(
      languageOf(`<html><head><title>t</title></head>${body}</html>`, { 'content-language': 'nl, en' }),
      'nl',
    );
    assert.equal(languageOf(`<html><head><title>t</title></head>${body}</html>`), 'de');
    // Too little text to tell.
    assert.equal(languageOf('<html><head><title>t</title></head><body><p>Hallo</p></body></html>'), 'und');
  });
});
