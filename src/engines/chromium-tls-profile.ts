import type { CustomEmulationOptions } from 'wreq-js';

/**
 * How Chromium opens an https connection, for the http engine's BoringSSL client (wreq-js): its TLS ClientHello
 * and its HTTP/2 preface, as the Debian Chromium the service ships sends them (recorded against
 * test/fixtures/fingerprint/fingerprint-site.ts; test/engines/chromium-tls.test.ts compares the two in one run,
 * so a Chromium that changes them fails there, not silently on the web).
 *
 * Equal to Chromium: the cipher suites, groups (with the post-quantum X25519MLKEM768), ALPN and ALPS (new
 * codepoint), GREASE, the permuted extension order, ECH GREASE, OCSP and SCT requests, brotli certificate
 * compression; the HTTP/2 SETTINGS and their order, the connection WINDOW_UPDATE, the HEADERS frame's priority and
 * the pseudo-header order. Not yet equal, because wreq-js 3.1 has no option for them: the trust_anchors extension
 * (0xca34) and the ML-DSA and GREASE entries Chromium 156 puts first in signature_algorithms, so the JA4 is
 * Chrome 143–149's (`t13d1516h2_8daaf6152771_d8a2da3f94cd`) where the shipped Chromium's is
 * `t13d1517h2_8daaf6152771_cb7bf5808d99` (docs/architecture.md, "The http engine's TLS").
 */
export const CHROMIUM_TLS_PROFILE: CustomEmulationOptions = {
  // A tlsOptions object replaces the preset's TLS options instead of amending them, so all are spelled out.
  tlsOptions: {
    cipherList: [
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
    ].join(':'),
    curvesList: 'X25519MLKEM768:X25519:P-256:P-384',
    sigalgsList: [
      'ecdsa_secp256r1_sha256',
      'rsa_pss_rsae_sha256',
      'rsa_pkcs1_sha256',
      'ecdsa_secp384r1_sha384',
      'rsa_pss_rsae_sha384',
      'rsa_pkcs1_sha384',
      'rsa_pss_rsae_sha512',
      'rsa_pkcs1_sha512',
    ].join(':'),
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
    settingsOrder: ['HeaderTableSize', 'EnablePush', 'InitialWindowSize', 'MaxHeaderListSize'],
    headerTableSize: 65536,
    enablePush: false,
    initialWindowSize: 6_291_456,
    maxHeaderListSize: 262_144,
    // The connection window Chromium opens with: 65 535 plus its first WINDOW_UPDATE (15 663 105).
    initialConnectionWindowSize: 15_728_640,
    // On the wire as 0–255; Chromium's is the highest (shown as 256 in the Akamai fingerprint).
    headersStreamDependency: { dependencyId: 0, weight: 255, exclusive: true },
  },
};
