/** One step of a retention scan: the last key it looked at, to go on from (null: nothing past it is old enough), and the rows deleted. */
export interface PruneStep {
  upto: number | null;
  deleted: number;
}

/**
 * One step of a retention scan over a table whose keys follow creation time: `rows` are the next
 * ones past `after`, in key order; the step covers them up to the first created at `before` or
 * later (the scan stops there instead of reading the whole table), and `remove(after, upto)`
 * deletes what of that range may go, answering how many rows went.
 */
export function pruneStep(
  rows: readonly { key: number; created_at: number }[],
  before: number,
  after: number,
  remove: (after: number, upto: number) => number,
): PruneStep {
  let upto: number | null = null;
  for (const row of rows) {
    if (row.created_at >= before) break;
    upto = row.key;
  }
  return upto === null ? { upto, deleted: 0 } : { upto, deleted: remove(after, upto) };
}
