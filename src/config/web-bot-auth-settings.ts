// Web Bot Auth, the signatures that let a site verify this service's requests: a section of the settings table
// (settings.ts). config.ts reads the key and checks the two together.
import { secret, section, url } from './kinds.js';

export const WEB_BOT_AUTH_SETTINGS = section('Fetching and content', {
  webBotAuthKey: secret(
    { env: 'WEB_BOT_AUTH_KEY' },
    'A private Ed25519 JSON Web Key (`{"kty":"OKP","crv":"Ed25519","x":…,"d":…}`), inline or the path of a ' +
      'file holding it. Set, every request of both engines is signed (Web Bot Auth: `Signature`, ' +
      '`Signature-Input`, `Signature-Agent`, RFC 9421) and the service serves the public key at ' +
      '`/.well-known/http-message-signatures-directory`. See docs/operations.md, "Web Bot Auth".',
  ),
  webBotAuthAgent: url(
    {
      env: 'WEB_BOT_AUTH_AGENT',
      requires: 'WEB_BOT_AUTH_KEY',
      whenUnset: 'none: needed with `WEB_BOT_AUTH_KEY`',
      schemes: ['https'],
    },
    "The `Signature-Agent` of the signed requests: the https origin where verifiers fetch the service's key " +
      'directory (this service behind its public name, e.g. `https://crawler.example.com`).',
  ),
});
