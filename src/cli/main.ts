import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, storePath } from '../config/config.js';
import { createAccount, revokeToken as revokeInDirectory } from '../domain/directory.js';
import { digestApiToken, generateApiToken, tokenPrefix } from '../domain/tokens.js';
import { createLogger, stdoutDestination, type Logger } from '../log.js';
import { packageVersion } from '../openapi/version.js';
import { startTracing } from '../tracing/sdk.js';
import { REPLAY_USAGE, replayCommand } from './replay-command.js';
import { BACKUP_USAGE, backupCommand, restoreCommand } from './backup-commands.js';
import { EXPORT_USAGE, exportCommand } from './export-command.js';
import { startGateway } from '../roles/server.js';
import { PROVIDER_USAGE, sandboxCommand, templatesCommand } from './provider-commands.js';
import { LISTEN_USAGE, listenCommand } from './webhook-listener.js';
import { startWorker } from '../roles/worker-role.js';
import { startFront } from '../roles/front-role.js';
import { CLUSTER_USAGE, clusterCommand } from './cluster-command.js';
import { adminCall } from './admin-client.js';
import { Store } from '../store/store.js';

const USAGE = `Usage:
  gateway serve [--role all|core|worker|front]  run the daemon (configured by GATEWAY_* environment variables)
${CLUSTER_USAGE}
  gateway token create --name <name>        create an account and print its new API token
  gateway token list [--account <id>]       list API tokens: id, account, prefix, created, last used, revoked (in a cluster: through the front)
  gateway token revoke <id>                 revoke an API token: its next request answers 401
${BACKUP_USAGE}
${EXPORT_USAGE}
${REPLAY_USAGE}
${PROVIDER_USAGE}
${LISTEN_USAGE}
  gateway help                              show this text`;

/** The `gateway` command. Answers the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest);
      case 'token':
        return await tokenCommand(rest);
      case 'cluster':
        return await clusterCommand(rest);
      case 'backup':
        return await backupCommand(rest);
      case 'export':
        return await exportCommand(rest);
      case 'restore':
        return await restoreCommand(rest);
      case 'replay':
        return await replayCommand(rest, loadConfig());
      case 'templates':
        return await templatesCommand(rest, loadConfig());
      case 'sandbox':
        return await sandboxCommand(rest, loadConfig());
      case 'webhooks':
        return await listenCommand(rest);
      case 'help':
      case '--help':
      case '-h':
      case undefined:
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 1 : 0;
      default:
        process.stderr.write(`gateway: unknown command "${command}"\n${USAGE}\n`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`gateway: ${error.message}\n`);
      return 78; // EX_CONFIG
    }
    if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`gateway: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { role: { type: 'string', default: 'all' } } });
  if (!['all', 'core', 'worker', 'front'].includes(values.role)) {
    process.stderr.write(`gateway: --role must be all, core, worker or front (got "${values.role}")\n`);
    return 2;
  }
  const config = loadConfig();
  // A front routes to the cores of GATEWAY_SHARD_URLS; it has no store and no streams of its own.
  if (values.role === 'front' && config.shardUrls.length === 0) {
    process.stderr.write(
      'gateway: --role front needs GATEWAY_SHARD_URLS (the cores, in shard order) and GATEWAY_SHARD_SLOTS\n',
    );
    return 2;
  }
  // Embedded streams live inside the one process that owns the store: splitting roles needs Kafka.
  if (values.role !== 'all' && values.role !== 'front' && config.kafkaBrokers === null) {
    process.stderr.write(
      `gateway: --role ${values.role} needs GATEWAY_KAFKA_BROKERS (without Kafka, run every role in one process)\n`,
    );
    return 2;
  }
  // Tracing first (docs/tracing.md): the logger then knows whether its lines carry trace ids, and
  // the servers whether to trace requests. Without an OTLP endpoint nothing of the SDK is loaded.
  let logger: Logger | undefined;
  const tracing = await startTracing(
    config.tracing,
    { role: values.role, version: packageVersion() },
    { warn: (message) => logger?.warn({ component: 'opentelemetry' }, message) },
  );
  logger = createLogger(config.logLevel, stdoutDestination(), { traceFields: tracing !== null });
  if (tracing !== null)
    logger.info(
      { protocol: config.tracing.protocol, service: config.tracing.serviceName },
      'tracing on: spans go to the OTLP endpoint',
    );
  const gateway =
    values.role === 'worker'
      ? await startWorker(config, logger)
      : values.role === 'front'
        ? await startFront(config, logger)
        : await startGateway(config, logger, { role: values.role as 'all' | 'core' });

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await gateway.close();
  // The spans of the last moments are exported before the process ends.
  await tracing?.shutdown();
  logger.info('stopped');
  return 0;
}

function tokenCommand(args: string[]): number | Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') return listTokens(rest);
  if (sub === 'revoke') return revokeToken(rest);
  if (sub !== 'create') {
    process.stderr.write(`gateway: unknown token command "${sub ?? ''}"\n${USAGE}\n`);
    return 2;
  }
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' } } });
  const name = values.name?.trim();
  if (!name) {
    process.stderr.write('gateway: token create needs --name <name>\n');
    return 2;
  }
  // Works beside a running daemon: the store is in WAL mode and writers wait for each other.
  // Same configuration as `serve` (loadConfig, storePath), and the store is named on stderr: a
  // token written to another data dir than the daemon's is unknown to it.
  const config = loadConfig();
  const file = storePath(config);
  const existed = fs.existsSync(file);
  // A core of a cluster hands out the account ids of its shard; the directory takes the account to the others.
  const store = Store.open(file, { shard: config.shard, slots: config.shardSlots });
  try {
    const token = generateApiToken();
    const account = store.transaction(() => createAccount(store, name, digestApiToken(token), tokenPrefix(token)));
    process.stderr.write(`Store: ${file}${existed ? '' : ' (did not exist, created now)'}\n`);
    process.stderr.write(`Created account ${account.id} "${name}". Its API token (shown once):\n`);
    process.stdout.write(`${token}\n`);
  } finally {
    store.close();
  }
  return 0;
}

/** The store of the daemon's configuration, for the token commands (they work beside a running daemon). */
function withStore<T>(work: (store: Store) => T): T {
  const file = storePath(loadConfig());
  if (!fs.existsSync(file)) throw new ConfigError([`no store at ${file}: GATEWAY_DATA_DIR must be the daemon's`]);
  const store = Store.open(file);
  try {
    return work(store);
  } finally {
    store.close();
  }
}

const isoOrDash = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString());

/**
 * `gateway token list [--account <id>]`: one line per token, never the token itself (its prefix).
 * In a cluster (GATEWAY_SHARD_SLOTS above 1) it asks the admin API at GATEWAY_PUBLIC_URL, the
 * front, which merges every shard's last use; one shard's store knows only the uses it served.
 */
async function listTokens(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { account: { type: 'string' } } });
  const account = values.account === undefined ? undefined : Number(values.account);
  if (account !== undefined && (!Number.isSafeInteger(account) || account < 1)) {
    process.stderr.write(`gateway: --account must be an account id (got "${values.account}")\n`);
    return 2;
  }
  const config = loadConfig();
  let rows: ListedToken[];
  if (config.shardSlots > 1) {
    try {
      const answer = await adminCall(
        config,
        'GET',
        `/admin/tokens${account === undefined ? '' : `?account_id=${account}`}`,
      );
      rows = answer.tokens as ListedToken[];
    } catch (error) {
      process.stderr.write(`gateway: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
  } else {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    rows = withStore((store) => store.accounts.listTokens(account)).map((row) => ({
      ...row,
      created_at: iso(row.created_at)!,
      last_used_at: iso(row.last_used_at),
      revoked_at: iso(row.revoked_at),
    }));
  }
  const lines = [['ID', 'ACCOUNT', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED']];
  for (const row of rows) {
    lines.push([
      String(row.id),
      `${row.account_id} ${row.account_name}`,
      row.prefix === null ? '-' : `${row.prefix}…`,
      row.created_at,
      row.last_used_at ?? '-',
      row.revoked_at ?? '-',
    ]);
  }
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  for (const line of lines)
    process.stdout.write(
      `${line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  return 0;
}

/** A token as `gateway token list` prints it, from the store or from the admin API (times in ISO 8601). */
interface ListedToken {
  id: number;
  account_id: number;
  account_name: string;
  prefix: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** `gateway token revoke <id>`: the token authenticates nothing from its next request on. */
function revokeToken(args: string[]): number {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const id = Number(positionals[0]);
  if (positionals.length !== 1 || !Number.isSafeInteger(id) || id < 1) {
    process.stderr.write('gateway: token revoke needs the id of a token (see gateway token list)\n');
    return 2;
  }
  const revoked = withStore((store) => store.transaction(() => revokeInDirectory(store, id)));
  if (revoked === undefined) {
    process.stderr.write(`gateway: there is no API token ${id}\n`);
    return 1;
  }
  process.stderr.write(
    `Revoked API token ${id} (${revoked.prefix ?? 'no prefix kept'}) of account ${revoked.account_id} "${revoked.account_name}" at ${isoOrDash(revoked.revoked_at)}.\n`,
  );
  return 0;
}
