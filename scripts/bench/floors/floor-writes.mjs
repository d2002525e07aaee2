// The complete floor's writes for one callback (scripts/bench/floors/floor-complete.mjs), in the open
// transaction of a group commit: the message deduplicated by its provider id, the sender's contact
// found or created and refreshed, the conversation found or created and moved (its unread count up
// by one), the message row and its events with the contract's presented objects in the v2 envelope,
// as outbox rows. Shared by the floor's own group commit and by its store thread
// (floor-store-thread.mjs).

const iso = (ms) => new Date(ms).toISOString();

/** The writes over the floor's prepared statements (floor-store.mjs): answers `store`. */
export function callbackWriter(sql) {
  let eventCounter = 0;
  const eventPrefix = `evt_${process.pid.toString(16)}${Date.now().toString(16)}_`;

  /** One callback's writes, in the open transaction: answers its events (empty for a repeat). */
  function store(channel, message, now) {
    const chatId = String(message.chat.id);
    const externalId = `${chatId}:${message.message_id}`;
    if (sql.messageByExternalId.get(channel.id, externalId) !== undefined) return null;
    const chat = message.chat;
    const isGroup = chat.type !== 'private';
    const publicId = chat.username === undefined ? chatId : `@${chat.username}`;
    const name = isGroup
      ? (chat.title ?? chatId)
      : [chat.first_name, chat.last_name].filter(Boolean).join(' ') || (chat.username ?? chatId);
    let contact = sql.contact.get(channel.id, chatId);
    let senderChanged = false;
    if (contact === undefined) {
      const id = Number(
        sql.insertContact.run(channel.companyId, channel.id, chatId, publicId, name, null, isGroup ? 1 : 0, now, now)
          .lastInsertRowid,
      );
      contact = { id, name, external_public_id: publicId, phone: null, avatar_url: '', is_group: isGroup ? 1 : 0 };
    } else if (contact.name !== name || contact.external_public_id !== publicId) {
      sql.refreshContact.run(name, publicId, now, contact.id);
      contact = { ...contact, name, external_public_id: publicId };
      senderChanged = true;
    }
    let conversation = sql.conversation.get(channel.id, contact.id);
    const created = conversation === undefined;
    if (created) {
      const id = Number(
        sql.insertConversation.run(channel.companyId, channel.id, contact.id, now, now).lastInsertRowid,
      );
      conversation = {
        id,
        operational_state: 'open',
        replied_state: 'unreplied',
        assignee_id: null,
        note: null,
        unread_count: 0,
        created_at: now,
      };
    }
    const text = message.text ?? message.caption ?? null;
    const repliedTo =
      message.reply_to_message === undefined ? null : `${chatId}:${message.reply_to_message.message_id}`;
    const sentAt = message.date * 1000;
    const messageId = Number(
      sql.insertMessage.run(
        channel.companyId,
        channel.id,
        conversation.id,
        contact.id,
        externalId,
        repliedTo,
        text,
        now,
        sentAt,
      ).lastInsertRowid,
    );
    sql.moveConversation.run(messageId, now, conversation.id);
    const events = [];
    const changed =
      senderChanged || conversation.operational_state !== 'open' || conversation.replied_state !== 'unreplied';
    // The conversation as the message left it: the object of its own event and, nested, of the message's.
    const moved = {
      id: conversation.id,
      company_id: channel.companyId,
      sender_name: contact.name,
      sender_phone: contact.phone,
      sender_external_id: chatId,
      sender_external_public_id: contact.external_public_id,
      provider: 'chat_b',
      avatar_url: contact.avatar_url,
      created_at: iso(conversation.created_at),
      last_updated_at: iso(now),
      last_message_id: messageId,
      operational_state: 'open',
      replied_state: 'unreplied',
      assignee_id: conversation.assignee_id,
      note: conversation.note,
      unread_count: conversation.unread_count + 1,
      group: contact.is_group === 1,
      // A private chat's (the bench's load); a group's would list the members who wrote in it.
      participants: [],
    };
    if (created || changed) events.push(event(channel, 'conversation', created ? 'create' : 'update', now, moved));
    // Message events carry the message's contact and conversation (schemas/objects/message-event.ts).
    events.push(
      event(channel, 'message', 'create', now, {
        id: messageId,
        external_id: externalId,
        company_id: channel.companyId,
        conversation_id: conversation.id,
        contact_id: contact.id,
        replied_to_id: repliedTo,
        created_at: iso(now),
        external_created_at: iso(sentAt),
        income: true,
        status: 'created',
        message: text,
        reactions: [],
        details: null,
        delivery: false,
        deleted: false,
        attachments: [],
        contact: {
          id: contact.id,
          name: contact.name,
          avatar_url: contact.avatar_url,
          phone: contact.phone,
          external_id: chatId,
          external_public_id: contact.external_public_id,
        },
        conversation: moved,
      }),
    );
    return events;
  }

  /** The v2 envelope of one event, appended to the outbox; answers what a delivery needs of it. */
  function event(channel, type, name, now, object) {
    const id = eventPrefix + (eventCounter++).toString(36);
    const json = JSON.stringify({ id, event: name, type, created_at: iso(now), object });
    sql.insertEvent.run(String(channel.companyId), id, json, now);
    return { id, json, companyId: channel.companyId, endpoint: channel.endpoint, createdAt: now };
  }

  return store;
}
