// What a company's conversations and messages are, read through the v2 API alone (so it holds
// against one daemon and a cluster alike): every page of its lists, a conversation by its sender, a
// message by its provider id, and the whole of it to prove that a request stored nothing.
import type { TestGateway } from './gateway.js';

async function get(gw: TestGateway, path: string): Promise<any> {
  const response = await gw.request('GET', path);
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${response.text}`);
  return response.body;
}

/** Every conversation of the company, by id. */
export async function allConversations(gw: TestGateway, companyId: number): Promise<any[]> {
  const conversations: any[] = [];
  for (let page = 1; ; page += 1) {
    const body = await get(gw, `/api/p2/conversations?company_id=${companyId}&per_page=100&page=${page}`);
    conversations.push(...body.conversations);
    if (conversations.length >= body.meta.entries_count || body.conversations.length === 0) break;
  }
  return conversations.sort((a, b) => a.id - b.id);
}

/** Every message of a conversation, by id. */
export async function allMessages(gw: TestGateway, companyId: number, conversationId: number): Promise<any[]> {
  const messages: any[] = [];
  for (let page = 1; ; page += 1) {
    const body = await get(
      gw,
      `/api/p2/conversations/${conversationId}/messages?company_id=${companyId}&per_page=500&page=${page}`,
    );
    messages.push(...body.messages);
    if (messages.length >= body.meta.entries_count || body.messages.length === 0) break;
  }
  return messages.sort((a, b) => a.id - b.id);
}

/** Every conversation and every message of the company: equal before and after, nothing was stored. */
export async function messagingState(
  gw: TestGateway,
  companyId: number,
): Promise<{ conversations: any[]; messages: any[] }> {
  const conversations = await allConversations(gw, companyId);
  const messages: any[] = [];
  for (const conversation of conversations) messages.push(...(await allMessages(gw, companyId, conversation.id)));
  return { conversations, messages };
}

/** The company's conversation with a sender (its provider id); throws unless there is exactly one. */
export async function conversationWith(gw: TestGateway, companyId: number, senderExternalId: string): Promise<any> {
  const found = (await allConversations(gw, companyId)).filter((c) => c.sender_external_id === senderExternalId);
  if (found.length !== 1) throw new Error(`${found.length} conversations with sender ${senderExternalId}`);
  return found[0];
}

/** The company's message with a provider id; throws unless there is exactly one. */
export async function messageWithExternalId(gw: TestGateway, companyId: number, externalId: string): Promise<any> {
  const found = (await messagingState(gw, companyId)).messages.filter((m) => m.external_id === externalId);
  if (found.length !== 1) throw new Error(`${found.length} messages with external id ${externalId}`);
  return found[0];
}
