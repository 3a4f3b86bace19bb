import { Type } from 'typebox';
import type { Static } from 'typebox';

/**
 * Execute in a browser session (`POST /v2/browser/{id}/execute`) and interact after a scrape
 * (`/v2/scrape/{scrapeId}/interact`), as @mendable/firecrawl-js 4.x sends and reads them.
 */

const Opt = Type.Optional;

export const FcExecuteBody = Type.Object(
  {
    code: Opt(
      Type.String({
        maxLength: 100_000,
        description:
          'A script of agent-browser commands (one a line, && chains), or with `language: "node"` the body of an ' +
          'async function given `page`, `context` and `browser`; `code` or `prompt`.',
      }),
    ),
    prompt: Opt(
      Type.String({
        maxLength: 10_000,
        description:
          "A goal for the server's LLM, which drives the page with commands step by step; `language` is then ignored.",
      }),
    ),
    language: Opt(
      Type.Union([Type.Literal('bash'), Type.Literal('node'), Type.Literal('python')], {
        description:
          '`bash` (agent-browser commands); `node` (Playwright code in a sandboxed process) when the operator ' +
          'sets BROWSER_EXECUTE_CODE=true, else a 400; `python` is not served (400).',
      }),
    ),
    timeout: Opt(
      Type.Integer({
        minimum: 1,
        maximum: 300,
        description: 'Seconds for the whole request (default 30, 120 with a prompt); past it exit code 124.',
      }),
    ),
    origin: Opt(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type FcExecuteBody = Static<typeof FcExecuteBody>;

export const FcExecuteReply = Type.Object({
  success: Type.Literal(true),
  stdout: Type.String({
    description: "Each command's output (a prompt: the steps' transcript); at most 1 MB.",
  }),
  stderr: Type.String({ description: 'Failures, `✗ ...` a line.' }),
  exitCode: Type.Integer({
    description: "The last command's: 0, 1 failed, 2 syntax, 124 timeout, 127 unknown command.",
  }),
  result: Opt(Type.String({ description: "A prompt's final answer; with code, the same text as stdout." })),
  killed: Type.Boolean({ description: 'The timeout ended the request.' }),
  truncated: Type.Boolean({ description: 'stdout or stderr was cut at its bound.' }),
});

export const FcScrapeIdParams = Type.Object(
  {
    scrapeId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "A scrape's `metadata.scrapeId`.",
    }),
  },
  { additionalProperties: false },
);
