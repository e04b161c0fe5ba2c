import { describe, expect, it } from 'vitest';
import { POLICY_NAMES } from '../../src/policies/registry.js';
import { dashAttribute, POLICY_COLOURS, POLICY_STYLES, policyStyles } from '../../src/report/palette.js';

/** Every registered policy: each has its own fixed style, the same in every figure. */
const NAMED = [...POLICY_NAMES];

/** WCAG relative luminance of "#rrggbb". */
function luminance(hex: string): number {
  const channel = (k: number) => {
    const c = parseInt(hex.slice(1 + 2 * k, 3 + 2 * k), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

describe('palette: bad arguments', () => {
  it('an empty list gives no styles; a repeated name is styled once', () => {
    expect(policyStyles([]).size).toBe(0);
    const styles = policyStyles(['X', 'X', 'Y']);
    expect([...styles.keys()]).toEqual(['X', 'Y']);
  });
});

describe('palette', () => {
  it('every registered policy has a fixed style (a new one fails here until it has one), and no two share a colour or a dash', () => {
    for (const p of NAMED) expect(POLICY_STYLES[p], p).toBeDefined();
    const pairs = new Set(NAMED.map((p) => `${POLICY_STYLES[p]!.colour}|${POLICY_STYLES[p]!.dash}`));
    expect(pairs.size).toBe(NAMED.length);
    expect(new Set(NAMED.map((p) => POLICY_STYLES[p]!.colour)).size).toBe(NAMED.length);
    expect(new Set(NAMED.map((p) => POLICY_STYLES[p]!.dash)).size).toBe(NAMED.length);
    expect(POLICY_COLOURS['EOFD-MLogB']).toBe('#0072B2');
  });

  it('every line colour stands out on white: contrast ratio (L1 + 0.05)/(L2 + 0.05) ≥ 2', () => {
    for (const p of NAMED) {
      const ratio = (1 + 0.05) / (luminance(POLICY_STYLES[p]!.colour) + 0.05);
      expect(ratio, p).toBeGreaterThanOrEqual(2);
    }
  });

  it('unknown policies get fallback styles in the order met, distinct from each other for the first 24', () => {
    const unknown = Array.from({ length: 24 }, (_, i) => `P${i}`);
    const styles = policyStyles(['EOFD-MLogB', ...unknown]);
    expect(styles.get('EOFD-MLogB')).toEqual(POLICY_STYLES['EOFD-MLogB']);
    expect(new Set(unknown.map((p) => `${styles.get(p)!.colour}|${styles.get(p)!.dash}`)).size).toBe(24);
    // Deterministic: the same list gives the same styles.
    expect(policyStyles(['EOFD-MLogB', ...unknown])).toEqual(styles);
    expect(dashAttribute({ colour: '#000000', dash: '' })).toBe('');
    expect(dashAttribute({ colour: '#000000', dash: '7 3' })).toBe(' stroke-dasharray="7 3"');
  });
});
