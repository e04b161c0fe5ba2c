/**
 * The policies eofd ships, once: the order in which reports, figures and `eofd list` show them, and
 * the colour and dash every figure draws each with. The registry (src/policies/registry.ts) orders its
 * descriptors by it and refuses a policy missing here; report/palette.ts draws from it. With it, the
 * one option of a policy that the report reads (OFUL-MLogB's oful_solver). It lives in base, not in
 * the registry, because report may not import policies (test/architecture.test.ts).
 *
 * Colours: the Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008), designed to stay
 * distinct under protanopia, deuteranopia and tritanopia, with its yellow (#F0E442, too faint on
 * white) replaced by mid grey for Random; EOFD-TS, the ninth, is a dark blue of EOFD-MLogB's hue,
 * told apart from it by lightness and dash. The eight baselines added after them take Paul Tol's
 * "muted" colours (also colour-blind safe) without its two light ones, and two of his "dark" ones,
 * each with a dash of its own (colour and dash differ for every pair).
 */
import { type DeclaredOption, policyOption } from './options.js';

export interface CatalogueEntry {
  /** As the registry spells it. */
  readonly name: string;
  /** Its colour in every figure. */
  readonly colour: string;
  /** Its SVG stroke-dasharray ('' for a solid line). */
  readonly dash: string;
}

export const POLICY_CATALOGUE: readonly CatalogueEntry[] = [
  { name: 'EOFD-MLogB', colour: '#0072B2', dash: '' },
  { name: 'OFUL-MLogB', colour: '#D55E00', dash: '7 3' },
  { name: 'Random', colour: '#7F7F7F', dash: '2 3' },
  { name: 'MNL-UCB', colour: '#009E73', dash: '10 3 2 3' },
  { name: 'OL2M', colour: '#CC79A7', dash: '4 2 4 2 1 2' },
  { name: 'ada-OFU-ECOLog', colour: '#E69F00', dash: '12 4' },
  { name: 'SOFUL', colour: '#56B4E9', dash: '6 2 1 2 1 2' },
  { name: 'TS-MLogB', colour: '#000000', dash: '3 2' },
  { name: 'EOFD-TS', colour: '#003A5C', dash: '14 3 3 3' },
  { name: 'GLM-UCB', colour: '#CC6677', dash: '5 2' },
  { name: 'GLOC', colour: '#332288', dash: '8 2 2 2' },
  { name: 'Logistic-UCB-1', colour: '#999933', dash: '1 2' },
  { name: 'OFULog-r', colour: '#882255', dash: '9 3 3 3 3 3' },
  { name: 'OFULog+', colour: '#44AA99', dash: '6 3' },
  { name: 'RS-GLinCB', colour: '#AA4499', dash: '2 2 6 2' },
  { name: 'RS-MNL', colour: '#225555', dash: '11 2' },
  { name: 'DBSLinUCB', colour: '#666633', dash: '4 4' },
];

/** The order in which reports, figures and `eofd list` show the policies. */
export const POLICY_ORDER: readonly string[] = POLICY_CATALOGUE.map((entry) => entry.name);

/**
 * params.oful_solver, OFUL-MLogB's own option (its descriptor's `options`), declared here because the
 * report reads it from manifests and may not import policies. How OFUL-MLogB computes what eq. (8) and
 * (9) need: 'incremental' (the default) follows H⁻¹ by rank-K Woodbury updates and decomposes H̃ only
 * when a step leaves the ball; 'textbook' is the cost the paper assigns it (§1, O(K³d³) a round): H⁻¹
 * inverted afresh and H̃ decomposed every round (eigenvalues; eigenvectors too when the step leaves the
 * ball), the projection being the identity inside the ball. Same decisions.
 */
export const OFUL_SOLVERS = ['incremental', 'textbook'] as const;
export type OfulSolver = (typeof OFUL_SOLVERS)[number];

export const OFUL_SOLVER_OPTION: DeclaredOption = {
  default: 'incremental',
  values: OFUL_SOLVERS,
  costOnly: true,
  description:
    "OFUL-MLogB's linear algebra, same decisions either way: 'incremental' (the default: Woodbury updates of H⁻¹; in rounds whose step leaves the ball, eq. (9) by Cholesky factorisations of H̃ + νI, Moré–Sorensen) or 'textbook' (the paper's O(K³d³) cost model: H⁻¹ inverted and H̃ reduced to tridiagonal form with its eigenvalues every round, its eigenvectors in rounds that project)",
};

/** OFUL-MLogB's oful_solver in `options` (a spec's, a problem shape's, a manifest's recorded params): its declared default when absent. */
export function ofulSolverOption(options: Readonly<Record<string, unknown>> | undefined): OfulSolver {
  return policyOption({ name: 'OFUL-MLogB', options: { oful_solver: OFUL_SOLVER_OPTION } }, options, 'oful_solver') as OfulSolver;
}
