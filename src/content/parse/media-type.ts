export type MediaKind = 'html' | 'json' | 'xml' | 'markdown' | 'text' | 'binary';

/** The media type without parameters, lower-cased ('' when absent). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function looksLikeHtml(head: string): boolean {
  return /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title)[\s>]/i.test(head);
}

function looksBinary(body: Buffer): boolean {
  const sample = body.subarray(0, 1024);
  if (
    sample.length >= 2 &&
    ((sample[0] === 0xfe && sample[1] === 0xff) || (sample[0] === 0xff && sample[1] === 0xfe))
  )
    return false; // UTF-16 BOM: text with NUL bytes
  return sample.includes(0);
}

/** Decides how a response body is treated, by declared media type and, where that is vague, by sniffing. */
export function classifyBody(mediaType: string, body: Buffer): MediaKind {
  if (looksBinary(body)) return 'binary';
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (mediaType === 'application/json' || mediaType.endsWith('+json') || mediaType === 'application/x-ndjson')
    return 'json';
  if (mediaType === 'text/markdown' || mediaType === 'text/x-markdown') return 'markdown';
  const head = body.subarray(0, 1024).toString('latin1');
  if (mediaType === '' || mediaType === 'application/octet-stream' || mediaType === 'text/plain') {
    if (looksLikeHtml(head)) return 'html';
    if (mediaType !== 'text/plain' && /^\s*<\?xml/.test(head)) return 'xml';
    return mediaType === 'application/octet-stream' ? 'binary' : 'text';
  }
  if (mediaType.endsWith('/xml') || mediaType.endsWith('+xml')) return 'xml';
  if (mediaType.startsWith('text/') || mediaType === 'application/javascript') return 'text';
  return 'binary';
}
