import { AccountStore } from './accounts.js';
import { DirectoryStore } from './directory.js';
import { SINGLE_SHARD, type IdSpace } from './id-space.js';
import { AttachmentStore } from './attachments.js';
import { AuthPageStore } from './auth-pages.js';
import { CallbackStore } from './callbacks.js';
import { ChannelStore } from './channels.js';
import { CompanyStore } from './companies.js';
import { DeliveryStore } from './deliveries.js';
import { DeliverySearch } from './delivery-search.js';
import { HeldDeliveryStore } from './held-deliveries.js';
import { EarlyStatusStore } from './early-statuses.js';
import { ContactStore } from './contacts.js';
import { ConversationStore } from './conversations.js';
import { openDatabase, transactionRunner, type Db, type TransactionRunner } from './db.js';
import { GroupCommit } from './group-commit.js';
import { MessageStore } from './messages.js';
import { migrate, schemaVersion } from './migrate.js';
import { OutboxStore } from './outbox.js';
import { ReplayTaskStore } from './replay-tasks.js';
import { StreamMessageStore } from './stream-messages.js';
import { TemplateStore } from './templates.js';
import { UnsentDeliveryStore } from './unsent-deliveries.js';
import { V1JobStore } from './v1-jobs.js';
import { WebhookEndpointStore } from './webhooks.js';
import { IdempotencyStore } from './idempotency.js';
import { WebSessionStore } from './web-sessions.js';

export interface StoreHealth {
  status: 'ok' | 'error';
  schema_version?: number;
  journal_mode?: string;
  error?: string;
}

/** The daemon's SQLite store: one repository per table or aggregate, all SQL inside them. */
export class Store {
  readonly accounts: AccountStore;
  readonly companies: CompanyStore;
  readonly channels: ChannelStore;
  readonly authPages: AuthPageStore;
  readonly attachments: AttachmentStore;
  readonly contacts: ContactStore;
  readonly conversations: ConversationStore;
  readonly messages: MessageStore;
  readonly templates: TemplateStore;
  readonly outbox: OutboxStore;
  readonly webhooks: WebhookEndpointStore;
  readonly deliveries: DeliveryStore;
  readonly deliverySearch: DeliverySearch;
  readonly held: HeldDeliveryStore;
  readonly unsent: UnsentDeliveryStore;
  readonly replayTasks: ReplayTaskStore;
  readonly streamMessages: StreamMessageStore;
  readonly callbacks: CallbackStore;
  readonly earlyStatuses: EarlyStatusStore;
  readonly webSessions: WebSessionStore;
  readonly idempotency: IdempotencyStore;
  readonly v1Jobs: V1JobStore;
  readonly directory: DirectoryStore;
  private readonly group: GroupCommit;
  private readonly inTransaction: TransactionRunner;

  private constructor(
    readonly db: Db,
    /** The shard whose ids this store hands out (src/store/id-space.ts). */
    readonly ids: IdSpace,
  ) {
    this.group = new GroupCommit(db);
    this.inTransaction = transactionRunner(db);
    this.accounts = new AccountStore(db, ids);
    this.directory = new DirectoryStore(db);
    this.companies = new CompanyStore(db, ids);
    this.channels = new ChannelStore(db, ids);
    this.authPages = new AuthPageStore(db);
    this.attachments = new AttachmentStore(db);
    this.contacts = new ContactStore(db);
    this.conversations = new ConversationStore(db);
    this.messages = new MessageStore(db);
    this.templates = new TemplateStore(db);
    this.outbox = new OutboxStore(db, this.group);
    this.webhooks = new WebhookEndpointStore(db);
    this.deliveries = new DeliveryStore(db);
    this.deliverySearch = new DeliverySearch(db);
    this.held = new HeldDeliveryStore(db);
    this.unsent = new UnsentDeliveryStore(db);
    this.replayTasks = new ReplayTaskStore(db);
    this.streamMessages = new StreamMessageStore(db, this.group);
    this.callbacks = new CallbackStore(db);
    this.earlyStatuses = new EarlyStatusStore(db);
    this.webSessions = new WebSessionStore(db);
    this.idempotency = new IdempotencyStore(db);
    this.v1Jobs = new V1JobStore(db);
  }

  /** Opens the file, applies pending migrations and prepares every statement once. */
  static open(file: string, ids: IdSpace = SINGLE_SHARD): Store {
    const db = openDatabase(file);
    try {
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
    return new Store(db, ids);
  }

  /** Runs fn in one transaction (BEGIN IMMEDIATE: the write lock is taken up front). */
  transaction<T>(fn: () => T): T {
    // Nested in another transaction (a group commit, a relay batch) this is a savepoint; in a
    // group-commit unit, the memory that follows savepoints (outbox rows to publish) follows it too.
    return this.group.guard(() => this.inTransaction.immediate(fn) as T);
  }

  /**
   * Runs fn in a transaction shared with the other units queued in this turn of the event loop
   * (src/store/group-commit.ts): atomic on its own, and committed before the promise resolves.
   */
  grouped<T>(fn: () => T, committed?: (value: T) => void): Promise<T> {
    return this.group.run(fn, committed);
  }

  /**
   * `grouped` for work a client waits for (a provider callback's answer): its transaction starts in
   * the next turn of the event loop, without the least gap between commits (GroupCommit.runUrgent).
   */
  groupedUrgent<T>(fn: () => T): Promise<T> {
    return this.group.runUrgent(fn);
  }

  health(): StoreHealth {
    try {
      const journal = this.db.pragma('journal_mode', { simple: true }) as string;
      return { status: 'ok', schema_version: schemaVersion(this.db), journal_mode: journal };
    } catch (error) {
      return { status: 'error', error: (error as Error).message };
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
