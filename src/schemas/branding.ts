import { Type } from 'typebox';
import type { Static } from 'typebox';

const Opt = Type.Optional;
const Hex = Type.String({ description: 'A colour as #RRGGBB, upper case.' });
const Strings = (keys: string[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Opt(Type.String())])));

const Button = Type.Object({
  background: Opt(Hex),
  textColor: Opt(Hex),
  borderColor: Opt(
    Type.String({ description: 'The border colour; the background when the button has no border.' }),
  ),
  borderRadius: Opt(Type.String({ description: 'CSS length, e.g. "6px".' })),
});

/**
 * A page's visual identity read from its computed styles in the browser: no model, no stylesheets parsed.
 * Every field is optional: what the page does not show is left out.
 */
export const BrandingProfile = Type.Object(
  {
    colorScheme: Opt(Type.Enum(['light', 'dark'])),
    brandName: Opt(Type.String({ description: 'og:site_name, application-name, else from the title.' })),
    logo: Opt(
      Type.Union([Type.String(), Type.Null()], {
        description:
          "Absolute URL of the logo in the page's header (an <img> or <svg> that says logo), else the site's icon; null when none.",
      }),
    ),
    fonts: Opt(Type.Array(Type.Object({ family: Type.String() }))),
    colors: Opt(
      Type.Object({
        primary: Opt(Hex),
        secondary: Opt(Hex),
        accent: Opt(Hex),
        background: Opt(Hex),
        textPrimary: Opt(Hex),
        textSecondary: Opt(Hex),
        link: Opt(Hex),
      }),
    ),
    typography: Opt(
      Type.Object({
        fontFamilies: Opt(Strings(['primary', 'heading', 'code'])),
        fontStacks: Opt(
          Type.Object(
            Object.fromEntries(
              ['primary', 'heading', 'body', 'code'].map((k) => [k, Opt(Type.Array(Type.String()))]),
            ),
          ),
        ),
        fontSizes: Opt(Strings(['h1', 'h2', 'h3', 'body'])),
        lineHeights: Opt(Type.Object({ heading: Opt(Type.Number()), body: Opt(Type.Number()) })),
        fontWeights: Opt(Type.Object({ regular: Opt(Type.Number()), bold: Opt(Type.Number()) })),
      }),
    ),
    spacing: Opt(Type.Object({ borderRadius: Opt(Type.String()) })),
    components: Opt(Type.Object({ buttonPrimary: Opt(Button), buttonSecondary: Opt(Button) })),
    images: Opt(
      Type.Object({
        logo: Opt(Type.Union([Type.String(), Type.Null()])),
        favicon: Opt(Type.Union([Type.String(), Type.Null()])),
        ogImage: Opt(Type.Union([Type.String(), Type.Null()])),
      }),
    ),
  },
  {
    description:
      'The branding format (browser engine): colours, fonts, the primary button and the logo, from computed styles.',
  },
);
export type BrandingProfile = Static<typeof BrandingProfile>;
