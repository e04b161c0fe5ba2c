/**
 * Child-process entry of `eofd bench`: measures one point in a fresh process, so its peak RSS is the
 * point's own, and reports it to the parent over IPC. Started by `runPoint` in run.ts, never directly.
 */
import { measurePoint, type BenchPoint, type MeasureOptions } from './measure.js';
import type { ChildReply } from './run.js';

process.once('message', (message: { point: BenchPoint; options: MeasureOptions }) => {
  measurePoint(message.point, message.options).then(
    (measurement) => reply({ ok: true, measurement, peakRssBytes: process.resourceUsage().maxRSS * 1024 }),
    (err: unknown) => reply({ ok: false, message: err instanceof Error ? err.message : String(err) }),
  );
});

function reply(result: ChildReply): void {
  process.send!(result, () => process.disconnect());
}
