/**
 * Every figure's policy styles: the fixed colour and dash pattern of each shipped policy
 * (base/policy-catalogue.ts), so a policy looks the same in Fig. 1, Fig. 2, a sweep's figure and any
 * report, and lines stay apart in greyscale and for colour-blind readers. Labels that are no policy's
 * name take Paul Tol's muted colours and the dash patterns in turn, in the order they are first met.
 */
import type { Stroke } from '../plot/svg.js';
import { POLICY_CATALOGUE } from '../base/policy-catalogue.js';

export { dashAttribute } from '../plot/svg.js';

/** A policy's colour and SVG stroke-dasharray ('' for a solid line). */
export type PolicyStyle = Stroke;

/** Fixed styles of the policies the project knows. */
export const POLICY_STYLES: Readonly<Record<string, PolicyStyle>> = Object.fromEntries(POLICY_CATALOGUE.map(({ name, colour, dash }) => [name, { colour, dash }]));

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
