/**
 * Generated parts of hand-written documents: the text between `<!-- NAME:start -->` and
 * `<!-- NAME:end -->` belongs to a generator (`npm run docs`), and a test regenerates it to check it.
 */

/** The two markers around the section called `name`. */
export function sectionMarkers(name: string): { start: string; end: string } {
  return { start: `<!-- ${name}:start -->`, end: `<!-- ${name}:end -->` };
}

/** `text` with the section `name` replaced by `section`; throws when a marker is missing. */
export function replaceGeneratedSection(text: string, section: string, name: string): string {
  const markers = sectionMarkers(name);
  const start = text.indexOf(markers.start);
  const end = text.indexOf(markers.end);
  if (start < 0 || end < start) throw new RangeError(`the text lacks ${markers.start} … ${markers.end}`);
  return `${text.slice(0, start + markers.start.length)}\n${section.trimEnd()}\n${text.slice(end)}`;
}
