/** The image object of the wire shapes (contract §5): `{url, id: 0, extension}` of a stored image URL. */

/** Extensions of URLs already seen: parsing a URL costs microseconds on every serialised record. */
const extensions = new Map<string, string>();

function extensionOf(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // stored URLs were validated on write; keep the raw string if that ever fails
  }
  return /\.([a-z0-9]{1,5})$/i.exec(path)?.[1]?.toLowerCase() ?? '';
}

export function imageObject(url: string | undefined): { url: string; id: 0; extension: string } | undefined {
  if (!url) return undefined;
  let extension = extensions.get(url);
  if (extension === undefined) {
    extension = extensionOf(url);
    if (extensions.size < 10_000) extensions.set(url, extension);
  }
  return { url, id: 0, extension };
}
