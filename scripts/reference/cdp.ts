import { BROWSER_METHODS, CHECKS, NO_EFFECT, PAGE_METHODS } from '../../src/sessions/cdp-methods.js';

const methods = (table: Record<string, string>): string[] =>
  Object.entries(table).map(
    ([domain, names]) =>
      `- **${domain}**: ${names
        .split(/\s+/)
        .map((n) => `\`${n}\``)
        .join(', ')}`,
  );

/** Markdown of docs/reference/cdp.md, from the allow-lists of src/sessions/cdp-methods.ts; prettier aligns it. */
export function renderCdp(): string {
  return [
    "# CDP served on a browser session's `cdpUrl`",
    '',
    '<!-- Generated from src/sessions/cdp-methods.ts by `npm run docs`: edit the lists, not this page. -->',
    '',
    "A session's CDP clients get these methods and no other: a method missing here (`Browser.close`,",
    '`SystemInfo`, `Tracing`, `Tethering`, `Extensions`, `DOM.setFileInputFiles`, ...) is refused with a CDP error',
    '(`{"id", "error": {"code": -32000, "message": "... refused by Pagewright: <why>"}}`), counted in',
    '`pagewright_cdp_messages_refused_total`. The lists are an allow-list: a method a newer Chromium adds is',
    'refused until it is read and listed. See the guide, "Over CDP: your own Playwright", for what the client sees.',
    '',
    '## On the browser (the connection itself, or a session of `Target.attachToBrowserTarget`)',
    '',
    "Targets, contexts, permissions and cookies are those of the session (another session's are refused or",
    "unseen); a command without `browserContextId` is for the session's own context.",
    '',
    ...methods(BROWSER_METHODS),
    '',
    '## On a page, frame or worker the client attached to',
    '',
    ...methods(PAGE_METHODS),
    '',
    '## Parameters checked',
    '',
    '| Method | Refused |',
    '| --- | --- |',
    ...Object.entries(CHECKS).map(([method, { doc }]) => `| \`${method}\` | ${doc} |`),
    '| `Target.createBrowserContext` | `proxyServer`, `proxyBypassList`, `originsWithUniversalNetworkAccess`; past `MAX_SESSION_CONTEXTS` |',
    '| `Target.createTarget` | past `MAX_SESSION_PAGES` pages open in the session |',
    '| `Target.attachToTarget`, `Target.setAutoAttach` | without `flatten: true` |',
    '',
    `Answered \`{}\` without effect: ${[...NO_EFFECT].map((m) => `\`${m}\``).join(', ')} (every context denies`,
    "downloads, so nothing is written to the server's disk).",
    '',
  ].join('\n');
}
