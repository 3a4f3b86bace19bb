import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ColorTally,
  blend,
  colorSchemeOf,
  isNeutral,
  isTransparent,
  luminance,
  parseColor,
  toHex,
} from '../../src/content/branding.js';
import { brandingProfile, fontStack } from '../../src/content/branding-profile.js';
import type { BrandingSample, ControlSample } from '../../src/content/branding-profile.js';

describe('colour maths', () => {
  test('parseColor reads rgb(), rgba(), space syntax with / alpha, hex of 3, 4, 6 and 8 digits', () => {
    assert.deepEqual(parseColor('rgb(255, 90, 31)'), { r: 255, g: 90, b: 31, a: 1 });
    assert.deepEqual(parseColor('rgba(0, 0, 0, 0.5)'), { r: 0, g: 0, b: 0, a: 0.5 });
    assert.deepEqual(parseColor('rgb(255 90 31 / 50%)'), { r: 255, g: 90, b: 31, a: 0.5 });
    assert.deepEqual(parseColor('rgb(100%, 0%, 50%)'), { r: 255, g: 0, b: 128, a: 1 });
    assert.deepEqual(parseColor('#FF5A1F'), { r: 255, g: 90, b: 31, a: 1 });
    assert.deepEqual(parseColor('#f00'), { r: 255, g: 0, b: 0, a: 1 });
    assert.deepEqual(parseColor('#f008'), { r: 255, g: 0, b: 0, a: 0x88 / 255 });
    assert.deepEqual(parseColor('#ff5a1f80'), { r: 255, g: 90, b: 31, a: 0x80 / 255 });
    assert.deepEqual(parseColor('transparent'), { r: 0, g: 0, b: 0, a: 0 });
    for (const bad of ['', 'red', 'oklch(0.7 0.1 40)', '#12345', 'rgb(1, 2)', 'rgb(a, b, c)'])
      assert.equal(parseColor(bad), null, bad);
  });

  test('toHex is #RRGGBB upper case; blend paints over an opaque colour', () => {
    assert.equal(toHex({ r: 255, g: 90, b: 31, a: 1 }), '#FF5A1F');
    assert.equal(toHex({ r: 0, g: 0, b: 0, a: 0.2 }), '#000000');
    const half = blend({ r: 0, g: 0, b: 0, a: 0.5 }, { r: 255, g: 255, b: 255, a: 1 });
    assert.equal(toHex(half), '#808080');
    assert.equal(half.a, 1);
    assert.equal(toHex(blend({ r: 255, g: 90, b: 31, a: 1 }, { r: 0, g: 0, b: 0, a: 1 })), '#FF5A1F');
  });

  test('neutral: white, black, greys and barely tinted greys; transparent: under 10% alpha', () => {
    for (const c of ['#FFFFFF', '#000000', '#6B7280', '#E5E7EB', '#1F2937'])
      assert.ok(isNeutral(parseColor(c)!), c);
    for (const c of ['#FF5A1F', '#7C3AED', '#2563EB', '#16A34A']) assert.ok(!isNeutral(parseColor(c)!), c);
    assert.ok(isTransparent(parseColor('rgba(255, 0, 0, 0.05)')!));
    assert.ok(!isTransparent(parseColor('rgba(255, 0, 0, 0.5)')!));
  });

  test('luminance and the colour scheme', () => {
    assert.equal(luminance(parseColor('#FFFFFF')!), 1);
    assert.equal(luminance(parseColor('#000000')!), 0);
    assert.ok(Math.abs(luminance(parseColor('#808080')!) - 0.2159) < 0.001);
    const white = parseColor('#FFFFFF')!;
    const ink = parseColor('#111827')!;
    assert.equal(colorSchemeOf(white, ink), 'light');
    assert.equal(colorSchemeOf(ink, white), 'dark');
    assert.equal(colorSchemeOf(parseColor('#0B0F19')!, null), 'dark', 'no text: by the background alone');
    assert.equal(colorSchemeOf(parseColor('#F5F5F5')!, null), 'light');
  });

  test('ColorTally ranks by summed weight, ties by colour', () => {
    const tally = new ColorTally();
    tally.add('#AAAAAA', 3);
    tally.add('#BBBBBB', 2);
    tally.add('#BBBBBB', 2);
    tally.add('#CCCCCC', 3);
    tally.add('#DDDDDD', 0);
    assert.deepEqual(tally.ranked(), ['#BBBBBB', '#AAAAAA', '#CCCCCC']);
  });

  test('fontStack: names without quotes, in order', () => {
    assert.deepEqual(fontStack('"Inter", "Helvetica Neue", Arial, sans-serif'), [
      'Inter',
      'Helvetica Neue',
      'Arial',
      'sans-serif',
    ]);
    assert.deepEqual(fontStack("'Open Sans',sans-serif"), ['Open Sans', 'sans-serif']);
  });
});

const control = (o: Partial<ControlSample>): ControlSample => ({
  tag: 'button',
  background: 'rgba(0, 0, 0, 0)',
  color: 'rgb(0, 0, 0)',
  borderColor: 'rgb(0, 0, 0)',
  borderWidth: 0,
  borderRadius: '0px',
  area: 1000,
  ...o,
});

const sample = (o: Partial<BrandingSample>): BrandingSample => ({
  title: 'Pricing | Globex',
  siteName: null,
  ogImage: null,
  icons: [],
  backgrounds: ['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)'],
  bodyColor: 'rgb(17, 24, 39)',
  textColors: [],
  controls: [],
  fonts: { body: null, h1: null, h2: null, h3: null, code: null },
  logo: null,
  ...o,
});

describe('brandingProfile', () => {
  test('brand colours by area: fills, outline borders at half weight, link text; greys never count', () => {
    const profile = brandingProfile(
      sample({
        controls: [
          control({
            background: 'rgb(37, 99, 235)',
            color: 'rgb(255, 255, 255)',
            area: 5000,
            borderRadius: '4px',
          }),
          control({ background: 'rgb(229, 231, 235)', area: 50_000 }),
          control({ borderWidth: 2, borderColor: 'rgb(22, 163, 74)', area: 6000 }),
          control({ tag: 'a', color: 'rgb(219, 39, 119)', area: 800 }),
          control({ tag: 'a', color: 'rgb(219, 39, 119)', area: 800 }),
          control({ tag: 'a', color: 'rgb(17, 24, 39)', area: 800 }),
        ],
      }),
      new URL('https://globex.example/pricing'),
    );
    assert.deepEqual(profile.colors, {
      primary: '#2563EB',
      secondary: '#16A34A',
      accent: '#DB2777',
      background: '#FFFFFF',
      textPrimary: '#111827',
      link: '#DB2777',
    });
    assert.equal(profile.colorScheme, 'light');
    assert.equal(profile.brandName, 'Globex', "the title's part the host name holds");
    assert.deepEqual(profile.components?.buttonPrimary, {
      background: '#2563EB',
      textColor: '#FFFFFF',
      borderColor: '#2563EB',
      borderRadius: '4px',
    });
    assert.equal(profile.components?.buttonSecondary?.background, '#E5E7EB');
  });

  test('the brand name is looked for in the first 300 characters of a title, however long the title', () => {
    const title = `Initech${'\u00a0 '.repeat(100_000)}| Initech`;
    const profile = brandingProfile(sample({ title }), new URL('https://initech.example/'));
    assert.equal(profile.brandName, 'Initech');
  });

  test('a translucent fill is painted over the page; the page background falls back to the root, then white', () => {
    const profile = brandingProfile(
      sample({
        backgrounds: ['rgba(0, 0, 0, 0)', 'rgb(0, 0, 0)'],
        bodyColor: 'rgb(240, 240, 240)',
        controls: [control({ background: 'rgba(255, 0, 0, 0.5)' })],
      }),
      new URL('https://a.example/'),
    );
    assert.equal(profile.colors?.background, '#000000');
    assert.equal(profile.colors?.primary, '#800000');
    assert.equal(profile.colorScheme, 'dark');
  });

  test("logo: the page's, else the touch icon, else the favicon; empty parts are left out", () => {
    const icons = [
      { href: 'https://a.example/favicon.ico', rel: 'icon', sizes: '' },
      { href: 'https://a.example/touch.png', rel: 'apple-touch-icon', sizes: '180x180' },
    ];
    const withIcons = brandingProfile(sample({ icons }), new URL('https://a.example/'));
    assert.equal(withIcons.logo, 'https://a.example/touch.png');
    assert.equal(withIcons.images?.favicon, 'https://a.example/favicon.ico');
    const withLogo = brandingProfile(
      sample({ icons, logo: { src: 'https://a.example/logo.svg', alt: 'A logo' } }),
      new URL('https://a.example/'),
    );
    assert.equal(withLogo.logo, 'https://a.example/logo.svg');
    const bare = brandingProfile(sample({}), new URL('https://a.example/'));
    assert.equal(bare.components, undefined);
    assert.equal(bare.typography, undefined);
    assert.equal(bare.colors?.primary, undefined);
  });
});
