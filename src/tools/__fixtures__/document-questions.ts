/**
 * Questions about real documents, each labelled with a phrase only the passage that answers it holds: a
 * passage "answers" when its text contains the phrase. The documents are third-party files this project's
 * dependencies ship (pinned by package-lock.json), read where npm put them: Fastify's reference (MIT) and
 * ioredis's README (MIT). The questions are written as a user would ask, not in the documents' words.
 */
export interface LabelledQuestion {
  /** The document's path under node_modules/. */
  document: string;
  question: string;
  /** Text the answering passage holds (exactly, as the document writes it). */
  answer: string;
}

const SERVER = 'fastify/docs/Reference/Server.md';
const HOOKS = 'fastify/docs/Reference/Hooks.md';
const REPLY = 'fastify/docs/Reference/Reply.md';
const IOREDIS = 'ioredis/README.md';

/** The documents of {@link QUESTIONS}, in the order a test joins them into one long file. */
export const DOCUMENTS = [SERVER, HOOKS, REPLY, IOREDIS] as const;

export const QUESTIONS: readonly LabelledQuestion[] = [
  { document: SERVER, question: 'How long does the server keep an idle keep-alive connection open by default?', answer: '`72000` (72 seconds)' },
  { document: SERVER, question: 'What is the largest request body the server accepts unless I change it?', answer: '`1048576` (1MiB)' },
  { document: SERVER, question: 'How long may a plugin take to load before fastify gives up?', answer: '### `pluginTimeout`' },
  { document: SERVER, question: 'Does the server answer 503 while it is closing?', answer: '### `return503OnClosing`' },
  { document: SERVER, question: 'How long can a route parameter be?', answer: 'the default value is 100' },
  { document: SERVER, question: 'Are trailing slashes ignored when matching routes?', answer: 'By default, Fastify will take into account the trailing slashes' },
  { document: SERVER, question: 'How do I trust the X-Forwarded-For header behind a proxy?', answer: '### `trustProxy`' },
  { document: SERVER, question: 'How do I generate my own request ids?', answer: '### `genReqId`' },
  { document: SERVER, question: 'What does the server do with a body that has a __proto__ key?', answer: '### `onProtoPoisoning`' },
  { document: SERVER, question: 'How do I turn off the log lines for every incoming request?', answer: '### `disableRequestLogging`' },
  { document: SERVER, question: 'Can I use HTTP/2?', answer: '### `http2`' },
  { document: SERVER, question: 'How do I rewrite the URL of a request before routing?', answer: '### `rewriteUrl`' },
  { document: SERVER, question: 'How do I close the server and what happens to open connections?', answer: '##### Shutdown lifecycle' },
  { document: SERVER, question: 'How can I check whether a route is already registered?', answer: '#### hasRoute' },
  { document: SERVER, question: 'How do I test a route without starting the server, by injecting a fake request?', answer: '#### inject' },
  { document: SERVER, question: 'How do I add a custom HTTP method such as MKCOL?', answer: '#### addHttpMethod' },
  { document: SERVER, question: 'Which addresses is the server listening on?', answer: '#### addresses' },
  { document: HOOKS, question: 'Which hook should I use to log errors, and may it change the error?', answer: 'It is not intended for changing the error' },
  { document: HOOKS, question: 'When does the onClose hook run, and are requests still in flight?', answer: 'This makes `onClose` the safe place' },
  { document: HOOKS, question: 'What happens to new requests during preClose?', answer: 'already rejecting new requests with `503`' },
  { document: HOOKS, question: 'Is there a hook that runs when the client aborts the request?', answer: "fastify.addHook('onRequestAbort'" },
  { document: HOOKS, question: 'How do I answer a request directly from inside a hook?', answer: '### Respond to a request from a hook' },
  { document: HOOKS, question: 'Which diagnostics channel event fires at initialization?', answer: "`'fastify.initialization'`" },
  { document: HOOKS, question: 'Can hooks be declared on a single route?', answer: '## Route level hooks' },
  { document: REPLY, question: 'What status code does a redirect use if I do not give one?', answer: 'default\nto `302`' },
  { document: REPLY, question: 'How do I find out how long the request has taken so far?', answer: '##### .elapsedTime' },
  { document: REPLY, question: 'How can I take over the response and stop fastify from sending it?', answer: 'Fastify provides the `reply.hijack()` method' },
  { document: REPLY, question: 'How do I remove a header I set earlier?', answer: '##### .removeHeader(key)' },
  { document: REPLY, question: 'How do I send HTTP trailers?', answer: '##### .trailer(key, function)' },
  { document: REPLY, question: 'Can I send a stream as the reply?', answer: '###### Streams' },
  { document: IOREDIS, question: 'How long does ioredis wait before reconnecting after the connection drops?', answer: 'This is the default value of `retryStrategy`' },
  { document: IOREDIS, question: 'What happens to commands sent before the connection is ready, and can I turn that off?', answer: 'by default, it\'s added to the offline queue' },
  { document: IOREDIS, question: 'Can every key get a namespace prefix automatically?', answer: '## Transparent Key Prefixing' },
  { document: IOREDIS, question: 'Is there a timeout for blocking commands like blpop?', answer: 'This feature is **opt-in**. It is **disabled by default**' },
  { document: IOREDIS, question: 'How do I batch commands automatically without changing my code?', answer: '`enableAutoPipelining` to `true`' },
  { document: IOREDIS, question: 'How do I print debug output from the client?', answer: 'DEBUG=ioredis:*' },
  { document: IOREDIS, question: 'How do I connect to a Redis Sentinel group?', answer: '## Sentinel' },
  { document: IOREDIS, question: 'How do I send commands to every node of a cluster?', answer: '### Running Commands to Multiple Nodes' },
  { document: IOREDIS, question: 'How do I map cluster node addresses behind NAT?', answer: '### NAT Mapping' },
  { document: IOREDIS, question: 'How do I run a Lua script?', answer: '## Lua Scripting' },
];
