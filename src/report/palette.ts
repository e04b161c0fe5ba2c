/**
 * Every figure's policy styles: a fixed colour and dash pattern per known policy, so a policy looks
 * the same in Fig. 1, Fig. 2, a sweep's figure and any report, and lines stay apart in greyscale and
 * for colour-blind readers (colour and dash differ for every pair).
 *
 * Colours: the Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008), designed to stay
 * distinct under protanopia, deuteranopia and tritanopia, with its yellow (#F0E442, too faint on
 * white) replaced by mid grey for Random; EOFD-TS, the ninth, is a dark blue of EOFD-MLogB's hue,
 * told apart from it by lightness and dash. The eight baselines added after them take Paul Tol's
 * "muted" colours (also colour-blind safe) without its two light ones, and two of his "dark" ones,
 * each with a dash of its own. Labels that are no policy's name take the muted colours and the dash
 * patterns in turn, in the order they are first met.
 */
import type { Stroke } from '../plot/svg.js';
import { EOFD, OFUL, RANDOM } from './summarize.js';

export { dashAttribute } from '../plot/svg.js';

/** A policy's colour and SVG stroke-dasharray ('' for a solid line). */
export type PolicyStyle = Stroke;

/** Fixed styles of the policies the project knows. */
export const POLICY_STYLES: Readonly<Record<string, PolicyStyle>> = {
  [EOFD]: { colour: '#0072B2', dash: '' },
  [OFUL]: { colour: '#D55E00', dash: '7 3' },
  [RANDOM]: { colour: '#7F7F7F', dash: '2 3' },
  'MNL-UCB': { colour: '#009E73', dash: '10 3 2 3' },
  OL2M: { colour: '#CC79A7', dash: '4 2 4 2 1 2' },
  'ada-OFU-ECOLog': { colour: '#E69F00', dash: '12 4' },
  SOFUL: { colour: '#56B4E9', dash: '6 2 1 2 1 2' },
  'TS-MLogB': { colour: '#000000', dash: '3 2' },
  'EOFD-TS': { colour: '#003A5C', dash: '14 3 3 3' },
  'GLM-UCB': { colour: '#CC6677', dash: '5 2' },
  GLOC: { colour: '#332288', dash: '8 2 2 2' },
  'Logistic-UCB-1': { colour: '#999933', dash: '1 2' },
  'OFULog-r': { colour: '#882255', dash: '9 3 3 3 3 3' },
  'OFULog+': { colour: '#44AA99', dash: '6 3' },
  'RS-GLinCB': { colour: '#AA4499', dash: '2 2 6 2' },
  'RS-MNL': { colour: '#225555', dash: '11 2' },
  DBSLinUCB: { colour: '#666633', dash: '4 4' },
};

/** Paul Tol's "muted" scheme (rose, indigo, olive, wine, teal, cyan, purple, sand), for unknown policies. */
const FALLBACK_COLOURS = ['#CC6677', '#332288', '#999933', '#882255', '#44AA99', '#88CCEE', '#AA4499', '#DDCC77'];
const FALLBACK_DASHES = ['', '7 3', '2 3', '10 3 2 3', '12 4', '3 2'];

/** The fixed colours of the known policies (kept for callers that only need a colour). */
export const POLICY_COLOURS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(POLICY_STYLES).map(([policy, style]) => [policy, style.colour]),
);

/**
 * The style of every policy in `policies`: fixed ones as above, unknown ones from the fallback colours
 * and dashes in the order given (colour k mod 8 with dash k mod 6: the first 24 differ in a pair).
 */
export function policyStyles(policies: Iterable<string>): Map<string, PolicyStyle> {
  const styles = new Map<string, PolicyStyle>();
  let next = 0;
  for (const policy of policies) {
    if (styles.has(policy)) continue;
    const known = POLICY_STYLES[policy];
    if (known !== undefined) {
      styles.set(policy, known);
      continue;
    }
    styles.set(policy, {
      colour: FALLBACK_COLOURS[next % FALLBACK_COLOURS.length] as string,
      dash: FALLBACK_DASHES[next % FALLBACK_DASHES.length] as string,
    });
    next++;
  }
  return styles;
}
