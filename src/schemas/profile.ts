import { Type } from 'typebox';
import type { Static } from 'typebox';

/** A profile's name: what routes, the CLI and the store key take (no path or key separators). */
export const ProfileName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'Letters, digits, `.`, `_` and `-`, starting with a letter or digit; 1 to 64 characters.',
});

/** Firecrawl's `profile` option: a named browser state (cookies, local storage) the page starts from. */
export const ProfileOption = Type.Object(
  {
    name: ProfileName,
    saveChanges: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "Write the state back when the scrape (or the crawl or batch job) ends: the browser's cookies and " +
          'local storage, and the cookies the http engine received.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Start from a stored profile (cookies and local storage) on both engines: logged-in scraping and ' +
      'crawling. A profile that does not exist is a 404 unless `saveChanges` creates it.',
  },
);
export type ProfileOption = Static<typeof ProfileOption>;

/** What the profile routes show: never a cookie's value. */
export const ProfileSummary = Type.Object({
  name: Type.String(),
  tenant: Type.String({ description: 'The tenant it belongs to: a name is unique within its tenant.' }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  expiresAt: Type.String({ description: 'PROFILE_TTL_DAYS after the last save.' }),
  cookies: Type.Integer({ description: 'Cookies held.' }),
  domains: Type.Array(Type.String(), { description: 'The domains those cookies are for.' }),
});

export const ProfileListReply = Type.Object({
  success: Type.Literal(true),
  profiles: Type.Array(ProfileSummary),
});
export const ProfileReply = Type.Object({ success: Type.Literal(true), profile: ProfileSummary });
export const ProfileDeletedReply = Type.Object({ success: Type.Literal(true) });
export const ProfileParams = Type.Object({ name: ProfileName }, { additionalProperties: false });
export const ProfileQuery = Type.Object(
  {
    tenant: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        description:
          "An operator key's choice of tenant (without it: every tenant's in a list; by name, the one tenant " +
          'holding it). Ignored for another key: it sees its own tenant only.',
      }),
    ),
  },
  { additionalProperties: false },
);
