import { GROUPS } from '../../src/config/kinds.js';
import type { Setting } from '../../src/config/kinds.js';
import { SETTINGS } from '../../src/config/settings.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The Description column: the setting's line, after what it needs and when it is checked. */
function description(setting: Setting<unknown>): string {
  const needs = setting.requires ? `Only with \`${setting.requires}\`. ` : '';
  const when = setting.checked === 'request' ? 'Checked at request time, not at startup. ' : '';
  return `${when}${needs}${setting.why}`;
}

function row(setting: Setting<unknown>): string {
  const cells = [`\`${setting.env}\``, setting.shownDefault, setting.accepts, description(setting)];
  return `| ${cells.map(cell).join(' | ')} |`;
}

/** Markdown of docs/reference/configuration.md, from the settings table (src/config/settings.ts). */
export function renderConfiguration(): string {
  const settings: Setting<unknown>[] = Object.values(SETTINGS);
  return [
    '# Configuration',
    '',
    '<!-- Generated from the settings table in src/config/settings.ts by `npm run docs`: edit the table, not this page. -->',
    '',
    'Every setting is an environment variable, read once at startup by `loadConfig` through the settings',
    'table in `src/config/settings.ts`; `npm run docs` generates this page from the same table. An unset or',
    'empty variable takes its default. An invalid value stops the service before it listens: it prints',
    '`Configuration error:` naming each invalid variable and what it accepts, and exits with status 1. One',
    'setting is the exception: `SERVICE_EXTRACT_CONCURRENCY` is checked when an extract request runs.',
    '',
    'Booleans also accept `1`/`0`, `yes`/`no` and `on`/`off`, in any case; lists are comma-separated; hours',
    'may be fractions (`0.5` is half an hour). A setting marked "Only with `X`" is used only when `X` is set.',
    '',
    ...GROUPS.flatMap((group) => [
      `## ${group}`,
      '',
      '| Variable | Default | Range / values | Description |',
      '| --- | --- | --- | --- |',
      ...settings.filter((setting) => setting.group === group).map(row),
      '',
    ]),
  ].join('\n');
}
