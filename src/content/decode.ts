import htmlEncodingSniffer from 'html-encoding-sniffer';
import whatwgEncoding from 'whatwg-encoding';

/** The charset parameter of a Content-Type header, if any. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match?.[1];
}

/**
 * Decodes an HTML body by the WHATWG rules: BOM, then the transport (Content-Type) charset, then the
 * <meta> prescan of the first 1024 bytes, then windows-1252.
 */
export function decodeHtml(body: Buffer, contentType: string | undefined): string {
  const encoding = htmlEncodingSniffer(body, {
    transportLayerEncodingLabel: charsetOf(contentType),
    defaultEncoding: 'windows-1252',
  });
  return whatwgEncoding.decode(body, encoding);
}

/** Decodes a non-HTML text body: BOM, then the header charset, then UTF-8. */
export function decodeText(body: Buffer, contentType: string | undefined): string {
  const fromBom = whatwgEncoding.getBOMEncoding(body);
  const fromHeader = whatwgEncoding.labelToName(charsetOf(contentType) ?? '');
  return whatwgEncoding.decode(body, fromBom ?? fromHeader ?? 'UTF-8');
}
