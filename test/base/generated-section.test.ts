import { describe, expect, it } from 'vitest';
import { replaceGeneratedSection, sectionMarkers } from '../../src/base/generated-section.js';

describe('replaceGeneratedSection', () => {
  it('replaces only the text between the named markers', () => {
    expect(replaceGeneratedSection('a\n<!-- s:start -->\nold\n<!-- s:end -->\nb', 'new', 's')).toBe('a\n<!-- s:start -->\nnew\n<!-- s:end -->\nb');
    expect(sectionMarkers('results')).toEqual({ start: '<!-- results:start -->', end: '<!-- results:end -->' });
  });

  it('needs both markers of its own name, in order', () => {
    expect(() => replaceGeneratedSection('no markers', 'x', 's')).toThrow(/<!-- s:start -->/);
    expect(() => replaceGeneratedSection('<!-- t:start -->\n<!-- t:end -->', 'x', 's')).toThrow(RangeError);
    expect(() => replaceGeneratedSection('<!-- s:end -->\n<!-- s:start -->', 'x', 's')).toThrow(RangeError);
  });
});
