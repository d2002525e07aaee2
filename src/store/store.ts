import { AccountStore } from './resources/accounts.js';
import { DirectoryStore } from './resources/directory.js';
import { SINGLE_SHARD, type IdSpace } from './engine/id-space.js';
import { AttachmentStore } from './resources/attachments.js';
import { AuthPageStore } from './resources/auth-pages.js';
import { CallbackStore } from './resources/callbacks.js';
import { ChannelStore } from './resources/channels.js';
import { CompanyStore } from './resources/companies.js';
import { DeliveryStore } from './deliveries/deliveries.js';
import { DeliverySearch } from './deliveries/delivery-search.js';
import { HeldDeliveryStore } from './deliveries/held-deliveries.js';
import { EarlyStatusStore } from './resources/early-statuses.js';
import { ContactStore } from './resources/contacts.js';
import { ParticipantStore } from './resources/participants.js';
import { CompanyExportStore } from './resources/company-export.js';
import { ContactErasureStore } from './resources/contact-erasure.js';
import { ConversationStore } from './resources/conversations.js';
import { openDatabase, transactionRunner, type Db, type TransactionRunner } from './engine/db.js';
import { GroupCommit } from './engine/group-commit.js';
import { MessageStore } from './resources/messages.js';
import { MessageRetentionStore } from './resources/message-retention.js';
import { migrate, schemaVersion } from './engine/migrate.js';
import { OutboxStore } from './pipeline/outbox.js';
import { CompanyEventLog } from './pipeline/company-event-log.js';
import { ReplayTaskStore } from './deliveries/replay-tasks.js';
import { StreamMessageStore } from './pipeline/stream-messages.js';
import { TemplateStore } from './resources/templates.js';
import { UnsentDeliveryStore } from './deliveries/unsent-deliveries.js';
import { V1JobStore } from './resources/v1-jobs.js';
import { WebhookEndpointStore } from './resources/webhooks.js';
import { IdempotencyStore } from './resources/idempotency.js';
import { WebSessionStore } from './resources/web-sessions.js';

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
  readonly companyExport: CompanyExportStore;
  readonly contactErasure: ContactErasureStore;
  readonly conversations: ConversationStore;
  readonly participants: ParticipantStore;
  readonly messages: MessageStore;
  readonly messageRetention: MessageRetentionStore;
  readonly templates: TemplateStore;
  readonly outbox: OutboxStore;
  /** The v2 events of the companies a live stream watches, for the retention: what it reads. */
  readonly eventLog: CompanyEventLog;
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
    /** The shard whose ids this store hands out (src/store/engine/id-space.ts). */
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
    this.participants = new ParticipantStore(db);
    this.companyExport = new CompanyExportStore(db);
    this.contactErasure = new ContactErasureStore(db);
    this.conversations = new ConversationStore(db);
    this.messages = new MessageStore(db);
    this.messageRetention = new MessageRetentionStore(db);
    this.templates = new TemplateStore(db);
    this.eventLog = new CompanyEventLog(db);
    this.outbox = new OutboxStore(db, this.group, this.eventLog);
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
   * (src/store/engine/group-commit.ts): atomic on its own, and committed before the promise resolves.
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
