import { cloudHandshakeQuery } from '../../../schemas/callbacks/cloud.js';
import { oauthRedirectQuery } from '../../../schemas/callbacks/oauth.js';
import type { Operation } from '../document.js';

/** Provider callbacks: each family proves itself by its own signature (docs/connector-protocol.md, docs/decisions.md "Callbacks"). */
export const callbackOperations: Operation[] = [
  {
    method: 'post',
    path: '/callbacks/:provider/:channelId',
    tag: 'callbacks',
    summary: 'A provider callback (cloud-style, bot-style or connector protocol), verified over the raw body',
    auth: 'none',
    readsBody: true,
    errors: [401, 422],
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/callbacks/:provider/:channelId/oauth',
    tag: 'callbacks',
    summary:
      "OAuth redirect of an auth created by provider alone: the provider sends the user's browser here with the auth's state (the capability; a wrong one is a 404) and its code; answers {status: 'ok', state}",
    auth: 'none',
    input: oauthRedirectQuery,
    errors: [409, 502, 503],
    success: { status: 200 },
  },
  {
    method: 'get',
    path: '/callbacks/chat_a_business/:channelId',
    tag: 'callbacks',
    summary:
      'Cloud-style subscribe handshake: answers hub.challenge as text when hub.verify_token matches; 422 for a malformed query (hub.mode other than subscribe, a missing or repeated parameter), 403 for a wrong verify token, 404 for an unknown channel',
    auth: 'none',
    input: cloudHandshakeQuery,
    errors: [403],
    success: { status: 200, description: 'The challenge, as text/plain' },
  },
];
