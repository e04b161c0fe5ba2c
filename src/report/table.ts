/**
 * Plain terminal tables: aligned columns, text left, numbers right. Colour (green "holds", red
 * "does not hold") only when asked for; `shouldColour` decides from the stream and the environment:
 * a TTY and no NO_COLOR (https://no-color.org: set to any non-empty value disables colour).
 */
import type { ClaimRow } from './claims.js';
import { formatBytes, formatMeanStd, formatPct, formatShort, formatSig } from './format.js';
import type { Report } from './report.js';
import type { ExperimentSummary } from './summarize.js';

export interface TableOptions {
  /** Per column: 'left' (default) or 'right'. */
  align?: readonly ('left' | 'right')[];
  /** Paints a cell after padding (so ANSI codes never disturb alignment). */
  paint?: (text: string, row: number, column: number) => string;
}

export function shouldColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** Width of a string as a terminal shows it (one column per code point; enough for this report). */
function width(text: string): number {
  return [...text].length;
}

/** An aligned table: header, a rule of dashes, rows; columns separated by two spaces. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[], options: TableOptions = {}): string {
  const widths = headers.map((h, c) => Math.max(width(h), ...rows.map((r) => width(r[c] ?? ''))));
  const line = (cellsOf: readonly string[], row: number) =>
    cellsOf
      .map((cell, c) => {
        const pad = ' '.repeat((widths[c] as number) - width(cell));
        const padded = options.align?.[c] === 'right' ? pad + cell : cell + pad;
        return row >= 0 && options.paint ? options.paint(padded, row, c) : padded;
      })
      .join('  ')
      .trimEnd();
  return [line(headers, -1), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r, i) => line(r, i))].join('\n') + '\n';
}

const GREEN = '\u001b[32m';
const RED = '\u001b[31m';
const RESET = '\u001b[0m';

/** The paper's symbols for the manifest's derived hyperparameters. */
const PAPER_SYMBOLS: Readonly<Record<string, string>> = { lambda: 'λ', eta: 'η', delta: 'δ', beta: 'β', alpha: 'α' };

/** One line saying where and how an experiment ran. */
export function describeExperiment(e: ExperimentSummary): string {
  const s = e.setting;
  const derived = Object.entries(e.derived)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'string')
    .map(([k, v]) => `${PAPER_SYMBOLS[k] ?? k} = ${typeof v === 'number' ? formatShort(v) : v}`)
    .join(', ');
  return (
    `${s.environment}, d = ${s.d}, K = ${s.K}, T = ${s.horizon}, ${s.trials} trial${s.trials === 1 ? '' : 's'}` +
    (derived ? `; ${derived}` : '')
  );
}

export const POLICY_HEADERS = [
  'policy',
  'final regret',
  'ms/round',
  'state',
  'ρ_{1:T}',
  'projections',
  '‖W_T − W*‖_F',
] as const;

/** The per-policy rows of one experiment, as text. */
export function policyRows(e: ExperimentSummary): string[][] {
  return e.policies.map((p) => [
    p.policy,
    formatMeanStd(p.finalRegret),
    formatMeanStd(p.roundMs, 3),
    formatBytes(p.stateBytes),
    formatShort(p.sketchError),
    formatShort(p.projections),
    formatMeanStd(p.parameterError, 3),
  ]);
}

/** "EOFD-MLogB vs OFUL-MLogB: regret overhead +12.3%, per-round time reduction 78.2%", or null. */
export function comparisonLine(e: ExperimentSummary): string | null {
  const c = e.comparison;
  if (c === null) return null;
  const reduction = c.timeReductionPct === null ? '–' : `${formatSig(c.timeReductionPct, 3)}%`;
  return `EOFD-MLogB vs OFUL-MLogB: regret overhead ${formatPct(c.regretOverheadPct)}, per-round time reduction ${reduction}`;
}

export const CLAIM_HEADERS = ['claim', 'experiment', 'paper', 'measured', 'verdict', 'why'] as const;

export function claimRows(claims: readonly ClaimRow[]): string[][] {
  return claims.map((c) => [c.setting, c.experiment ?? '–', c.paper, c.measured, c.verdict, c.note]);
}

/** The whole report as terminal text. */
export function renderTerminal(report: Report, options: { colour: boolean }): string {
  const parts: string[] = [];
  for (const e of report.experiments) {
    parts.push(`${e.name}  (${e.dir})`);
    parts.push(describeExperiment(e));
    parts.push('');
    parts.push(formatTable(POLICY_HEADERS, policyRows(e), { align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'] }));
    const line = comparisonLine(e);
    if (line !== null) parts.push(line, '');
  }
  parts.push("The paper's claims (Section 4)");
  parts.push('');
  const verdictColumn = 4;
  parts.push(
    formatTable(CLAIM_HEADERS, claimRows(report.claims), {
      paint: options.colour
        ? (text, row, column) => {
            if (column !== verdictColumn) return text;
            const verdict = report.claims[row]?.verdict;
            return verdict === 'holds' ? GREEN + text + RESET : verdict === 'does not hold' ? RED + text + RESET : text;
          }
        : undefined,
    }),
  );
  return parts.join('\n');
}
