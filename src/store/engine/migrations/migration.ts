/** One versioned schema change: applied once, in version order, in its own transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
