/** Resolves href against base; null for empty, unparsable or javascript: values. */
export function absoluteUrl(href: string | undefined, base: URL): string | null {
  const value = href?.trim();
  if (!value) return null;
  try {
    const url = new URL(value, base);
    if (url.protocol === 'javascript:') return null;
    return url.href;
  } catch {
    return null;
  }
}

/** Rewrites every candidate in a srcset to an absolute URL, keeping the descriptors. */
export function absoluteSrcset(srcset: string, base: URL): string {
  return srcset
    .split(',')
    .map((part) => {
      const [src, ...descriptor] = part.trim().split(/\s+/);
      const abs = absoluteUrl(src, base);
      return abs ? [abs, ...descriptor].join(' ') : null;
    })
    .filter((part): part is string => part !== null)
    .join(', ');
}
