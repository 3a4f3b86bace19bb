import htmlEncodingSniffer from 'html-encoding-sniffer';
import whatwgEncoding from 'whatwg-encoding';

/** The charset parameter of a Content-Type header, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match?.[1];
}

const NOT_FOUND = 'not-found';
const LATE_META = /<meta\b[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i;
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes an HTML body by the WHATWG encoding sniffing algorithm: BOM, then the transport (Content-Type)
 * charset, then the <meta> prescan of the first 1024 bytes. Where none of those decide, the algorithm
 * allows autodetection before the default: a <meta charset> later in the head (the parser's "change the
 * encoding" step), then UTF-8 when the bytes are valid UTF-8, then windows-1252.
 */
export function decodeHtml(body: Buffer, contentType: string | undefined): string {
  const encoding = htmlEncodingSniffer(body, {
    transportLayerEncodingLabel: charsetOf(contentType),
    defaultEncoding: NOT_FOUND,
  });
  if (encoding === NOT_FOUND) return autodetect(body);
  return decodeAs(body, encoding);
}

const utf8 = new TextDecoder('utf-8');

/**
 * UTF-8 through the platform decoder (fast); every other encoding through whatwg-encoding, whose
 * tables follow the WHATWG Encoding Standard (Node's own 'windows-1252' is really latin1).
 */
function decodeAs(body: Buffer, encoding: string): string {
  return encoding === 'UTF-8' ? utf8.decode(body) : whatwgEncoding.decode(body, encoding);
}

function autodetect(body: Buffer): string {
  const head = body.subarray(0, 64 * 1024).toString('latin1');
  const late = LATE_META.exec(head);
  const declared = late ? whatwgEncoding.labelToName(late[1]!) : null;
  // A page that declares UTF-16 in a meta is really ASCII-compatible bytes: the spec maps it to UTF-8.
  if (declared && !declared.startsWith('UTF-16')) return decodeAs(body, declared);
  try {
    return utf8Strict.decode(body);
  } catch {
    return decodeAs(body, 'windows-1252');
  }
}

/** Decodes a non-HTML text body: BOM, then the header charset, then UTF-8. */
export function decodeText(body: Buffer, contentType: string | undefined): string {
  const fromBom = whatwgEncoding.getBOMEncoding(body);
  const fromHeader = whatwgEncoding.labelToName(charsetOf(contentType) ?? '');
  return whatwgEncoding.decode(body, fromBom ?? fromHeader ?? 'UTF-8');
}
