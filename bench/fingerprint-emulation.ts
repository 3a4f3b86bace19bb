import type { Fingerprint } from '../test/fixtures/fingerprint/fingerprint-site.js';

/**
 * BoringSSL's names for the signature schemes Chromium offers (SSL_CTX_set1_sigalgs_list). The ML-DSA ones
 * Chromium 156 offers first (0x0904–0x0906) are refused by wreq-js 3.1's BoringSSL under every name tried.
 */
const SIGALG_NAMES: Record<number, string> = {
  0x0403: 'ecdsa_secp256r1_sha256',
  0x0503: 'ecdsa_secp384r1_sha384',
  0x0603: 'ecdsa_secp521r1_sha512',
  0x0804: 'rsa_pss_rsae_sha256',
  0x0805: 'rsa_pss_rsae_sha384',
  0x0806: 'rsa_pss_rsae_sha512',
  0x0401: 'rsa_pkcs1_sha256',
  0x0501: 'rsa_pkcs1_sha384',
  0x0601: 'rsa_pkcs1_sha512',
  0x0807: 'ed25519',
};

const CHROMIUM_TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-RSA-AES128-SHA',
  'ECDHE-RSA-AES256-SHA',
  'AES128-GCM-SHA256',
  'AES256-GCM-SHA384',
  'AES128-SHA',
  'AES256-SHA',
].join(':');

const SETTING_NAMES: Record<number, string> = {
  1: 'HeaderTableSize',
  2: 'EnablePush',
  3: 'MaxConcurrentStreams',
  4: 'InitialWindowSize',
  5: 'MaxFrameSize',
  6: 'MaxHeaderListSize',
  8: 'EnableConnectProtocol',
  9: 'NoRfc7540Priorities',
};

/**
 * wreq-js custom emulation layered on its newest Chrome preset, taking from the recorded reference what the
 * preset may differ in: signature schemes, SETTINGS, the HEADERS frame's priority and the header order. What
 * wreq-js has no option for (trust_anchors 0xca34, ML-DSA and GREASE in signature_algorithms) stays different.
 */
export function chromiumEmulation(reference: Fingerprint): Record<string, unknown> {
  const sigalgs = reference.tls.signatureAlgorithms.map((s) => SIGALG_NAMES[s]).filter(Boolean);
  const h2 = reference.http2;
  const [exclusive, dependencyId, weight] = (h2?.headersPriority ?? '1:0:256').split(':').map(Number);
  const navigation = reference.requests[0]?.headers ?? [];
  const settings = Object.fromEntries(h2?.settings ?? []);
  return {
    // A tlsOptions object replaces the preset's TLS settings instead of amending them, so all are spelled out
    // (Chromium's values as BoringSSL configures them); the recorded ones come from the reference.
    tlsOptions: {
      cipherList: CHROMIUM_TLS12_CIPHERS,
      curvesList: 'X25519MLKEM768:X25519:P-256:P-384',
      sigalgsList: sigalgs.join(':'),
      alpnProtocols: ['HTTP2', 'HTTP1'],
      alpsProtocols: ['HTTP2'],
      alpsUseNewCodepoint: true,
      greaseEnabled: true,
      permuteExtensions: true,
      enableEchGrease: true,
      enableOcspStapling: true,
      enableSignedCertTimestamps: true,
      certificateCompressionAlgorithms: ['brotli'],
      sessionTicket: true,
      preSharedKey: false,
      minTlsVersion: '1.2',
      maxTlsVersion: '1.3',
    },
    http2Options: {
      headersPseudoOrder: ['Method', 'Authority', 'Scheme', 'Path'],
      settingsOrder: (h2?.settings ?? []).map(([id]) => SETTING_NAMES[id]).filter(Boolean),
      headerTableSize: settings[1],
      enablePush: settings[2] === 1,
      initialWindowSize: settings[4],
      maxHeaderListSize: settings[6],
      initialConnectionWindowSize: (h2?.windowUpdate ?? 0) + 65535,
      // wreq-js takes the weight as on the wire (0–255); the fingerprint shows it + 1.
      headersStreamDependency: { dependencyId, weight: (weight ?? 256) - 1, exclusive: exclusive === 1 },
    },
    headers: navigation.filter(([name]) => !name.startsWith(':')),
    origHeaders: navigation.map(([name]) => name).filter((name) => !name.startsWith(':')),
  };
}
