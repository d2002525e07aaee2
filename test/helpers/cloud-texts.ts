// Events of a company made the way a provider makes them, through HTTP alone (so it holds against
// one daemon and a cluster alike): a cloud-style channel, and text messages posted to its callback
// signed with its app secret. A company's first text from a sender writes conversation.create and
// message.create; each further one message.create.
import { expect } from 'vitest';
import { callbackInfo, cloudBody, postCloud } from './callbacks.js';
import type { TestGateway } from './gateway.js';

/** A cloud-style channel of a company, with the app secret its callbacks are signed with. */
export interface CloudChannel {
  companyId: number;
  channelId: number;
  appSecret: string;
}

/** Gives `companyId` a cloud-style chat_a_business channel through the v1 API. */
export async function cloudChannel(gw: TestGateway, companyId: number): Promise<CloudChannel> {
  const created = await gw.request('POST', `/p1/companies/${companyId}/channels`, {
    json: { provider: 'chat_a_business', hosting_type: 'cloud', token: 'EAAG-cloud-token' },
  });
  expect(created.status, created.text).toBe(201);
  const channelId = created.body.data.external_id as number;
  return { companyId, channelId, appSecret: (await callbackInfo(gw, channelId)).secrets.app_secret! };
}

/** Posts a text message from one sender with the provider's message id `id`; the callback answers 200. */
export async function postCloudText(gw: TestGateway, channel: CloudChannel, id: string, text: string): Promise<void> {
  const body = cloudBody([
    { from: '4915100000001', id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } },
  ]);
  const res = await postCloud(gw, channel.channelId, body, channel.appSecret);
  expect(res.status, res.text).toBe(200);
}
