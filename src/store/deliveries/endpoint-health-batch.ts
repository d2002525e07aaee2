import type { Db } from '../engine/db.js';

/** What a run of attempts of one endpoint did to its health, folded in order, not yet written. */
interface Fold {
  /** The last success's time, null when none came. */
  lastSuccessAt: number | null;
  /** The last failure's time, null when none came. */
  lastFailureAt: number | null;
  /** A success came: the row's streak starts again from this fold's failures after it. */
  reset: boolean;
  /** The first failure after the fold's last success (or since it began), null when none came. */
  failingSince: number | null;
  /** Failures after the fold's last success (or since it began). */
  failures: number;
  /** The row's failing_since when the fold began (null: none), read once and only when a failure needs it; undefined until then. */
  storedFailingSince?: number | null;
}

/**
 * The health writes of one transaction's attempts (`webhook_endpoint_health`), one row write per
 * endpoint however many attempts it had: each attempt is folded in order, and `flush` writes the
 * row as writing it attempt by attempt would have left it. A success sets the last success and
 * ends the failure streak; a failure sets the last failure, starts the streak if none runs and
 * counts it. The caller flushes before the transaction ends, and before anything else writes an
 * endpoint's row (disabling it sets `disabled_at` there).
 */
export class EndpointHealthBatch {
  private readonly folds = new Map<number, Fold>();

  constructor(private readonly statements: EndpointHealthStatements) {}

  success(endpointId: number, at: number): void {
    const fold = this.foldOf(endpointId);
    fold.lastSuccessAt = at;
    fold.reset = true;
    fold.failingSince = null;
    fold.failures = 0;
  }

  /** Folds a failure in; answers since when the endpoint has been failing, as the row will say. */
  failure(endpointId: number, at: number): number {
    const fold = this.foldOf(endpointId);
    fold.lastFailureAt = at;
    fold.failures += 1;
    fold.failingSince ??= at;
    if (fold.reset) return fold.failingSince;
    if (fold.storedFailingSince === undefined)
      fold.storedFailingSince = this.statements.failingSince.get(endpointId)?.failing_since ?? null;
    return fold.storedFailingSince ?? fold.failingSince;
  }

  /** Writes the endpoint's folded health, if any (nothing when the endpoint is gone). */
  flush(endpointId: number): void {
    const fold = this.folds.get(endpointId);
    if (fold === undefined) return;
    this.folds.delete(endpointId);
    this.statements.upsert.run({
      endpoint_id: endpointId,
      last_success_at: fold.lastSuccessAt,
      last_failure_at: fold.lastFailureAt,
      reset: fold.reset ? 1 : 0,
      failing_since: fold.failingSince,
      failures: fold.failures,
    });
  }

  flushAll(): void {
    for (const endpointId of [...this.folds.keys()]) this.flush(endpointId);
  }

  private foldOf(endpointId: number): Fold {
    let fold = this.folds.get(endpointId);
    if (fold === undefined) {
      fold = { lastSuccessAt: null, lastFailureAt: null, reset: false, failingSince: null, failures: 0 };
      this.folds.set(endpointId, fold);
    }
    return fold;
  }
}

/** The prepared statements an EndpointHealthBatch writes with; prepared once per store. */
export interface EndpointHealthStatements {
  failingSince: ReturnType<typeof prepareFailingSince>;
  upsert: ReturnType<typeof prepareUpsert>;
}

export function endpointHealthStatements(db: Db): EndpointHealthStatements {
  return { failingSince: prepareFailingSince(db), upsert: prepareUpsert(db) };
}

function prepareFailingSince(db: Db) {
  return db.prepare<[number], { failing_since: number | null }>(
    'SELECT failing_since FROM webhook_endpoint_health WHERE endpoint_id = ?',
  );
}

// Nothing when the endpoint is gone (deleted since the attempt): its health row would violate the
// foreign key, and there is nothing left to record.
function prepareUpsert(db: Db) {
  return db.prepare<{
    endpoint_id: number;
    last_success_at: number | null;
    last_failure_at: number | null;
    reset: number;
    failing_since: number | null;
    failures: number;
  }>(
    `INSERT INTO webhook_endpoint_health (endpoint_id, last_success_at, last_failure_at, failing_since, consecutive_failures)
     SELECT @endpoint_id, @last_success_at, @last_failure_at, @failing_since, @failures
     WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = @endpoint_id)
     ON CONFLICT (endpoint_id) DO UPDATE SET
       last_success_at = coalesce(@last_success_at, last_success_at),
       last_failure_at = coalesce(@last_failure_at, last_failure_at),
       failing_since = CASE WHEN @reset THEN @failing_since ELSE coalesce(failing_since, @failing_since) END,
       consecutive_failures = CASE WHEN @reset THEN @failures ELSE consecutive_failures + @failures END`,
  );
}
