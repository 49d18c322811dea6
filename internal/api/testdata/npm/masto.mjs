// masto.js (the library of Elk and Phanpy) used as an app uses it,
// against the retwis server the Go test started
// (internal/api/npm_clients_test.go, TestMastoJS): alice's token in
// RETWIS_TOKEN, bob's in RETWIS_OTHER_TOKEN, the text of alice's post
// and its content warning in RETWIS_TEXT and RETWIS_SPOILER. It reports
// what the library read; the test checks it. The protocol: harness.mjs.
import { MastoHttpError, createRestAPIClient, createStreamingAPIClient } from "masto";

import { check, env, run, sync, within } from "./harness.mjs";

const wait = 10_000; // ms: how long a request or an event may take

const url = env("RETWIS_URL");
const alice = createRestAPIClient({ url, accessToken: env("RETWIS_TOKEN"), timeout: wait });
const bob = createRestAPIClient({ url, accessToken: env("RETWIS_OTHER_TOKEN"), timeout: wait });

// ids pages through a list, limit entries a page, as the library follows
// the Link header's "next", and returns the ids of each page.
async function ids(paginator) {
  const pages = [];
  for await (const page of paginator) {
    check(pages.length < 20, "the pages never end");
    pages.push(page.map((entry) => entry.id));
  }
  return pages;
}

// instance reads both instance entities.
async function instance() {
  const v1 = await alice.v1.instance.fetch();
  const v2 = await alice.v2.instance.fetch();
  return {
    uri: v1.uri, streamingAPI: v1.urls.streamingApi, domain: v2.domain,
    maxCharacters: v2.configuration.statuses.maxCharacters, streaming: v2.configuration.urls.streaming,
  };
}

// following returns whether alice follows the account id, as the
// relationships say.
async function following(id) {
  const [rel] = await alice.v1.accounts.relationships.fetch({ id: [id] });
  check(rel?.id === id, `relationships of ${id}: ${JSON.stringify(rel)}`);
  return rel.following;
}

// streamed opens alice's user stream, has bob post a mention of her
// once the server listens, and returns the post and the event of it.
async function streamed(streamingApiUrl) {
  const streaming = createStreamingAPIClient({ streamingApiUrl, accessToken: env("RETWIS_TOKEN"), retry: 1 });
  try {
    const events = streaming.user.subscribe()[Symbol.asyncIterator]();
    let next = events.next(); // connects and subscribes
    await sync("subscribed");
    const mention = await bob.v1.statuses.create({ status: "@alice hello from bob" });
    const event = await within(wait, `the update of bob's post ${mention.id} on alice's user stream`, (async () => {
      for (;;) {
        const { value, done } = await next;
        check(!done, "the user stream ended");
        next = events.next();
        if (value.event === "update" && value.payload.id === mention.id) {
          return value;
        }
      }
    })());
    return { mention: mention.id, event: event.event, stream: event.stream, id: event.payload.id, author: event.payload.account.acct };
  } finally {
    streaming.close();
  }
}

// post posts RETWIS_TEXT behind RETWIS_SPOILER and reads it back.
async function post() {
  const made = await alice.v1.statuses.create({ status: env("RETWIS_TEXT"), spoilerText: env("RETWIS_SPOILER") });
  const read = await alice.v1.statuses.$select(made.id).fetch();
  const shown = (st) => ({ id: st.id, content: st.content, spoilerText: st.spoilerText, sensitive: st.sensitive, author: st.account.acct });
  return { posted: shown(made), read: shown(read) };
}

// gone deletes the post id and returns the status reading it then
// answers.
async function gone(id) {
  const deleted = await alice.v1.statuses.$select(id).remove();
  check(deleted.id === id, `deleting ${id} answered ${deleted.id}`);
  try {
    await alice.v1.statuses.$select(id).fetch();
  } catch (err) {
    if (err instanceof MastoHttpError) {
      return err.statusCode;
    }
    throw err;
  }
  return 200;
}

run(async () => {
  const out = { instance: await instance() };
  const me = await alice.v1.accounts.verifyCredentials();
  out.me = { id: me.id, username: me.username, acct: me.acct };
  const other = await alice.v1.accounts.lookup({ acct: "bob" });
  out.follow = (await alice.v1.accounts.$select(other.id).follow()).following;
  out.following = await following(other.id);
  out.stream = await streamed(out.instance.streaming);
  out.plain = [];
  for (const status of ["alice one #clients", "alice two"]) {
    out.plain.push((await alice.v1.statuses.create({ status })).id);
  }
  Object.assign(out, await post());
  await sync("drained");
  out.home = await ids(alice.v1.timelines.home.list({ limit: 2 }));
  out.public = await ids(alice.v1.timelines.public.list({ limit: 2 }));
  out.statuses = await ids(alice.v1.accounts.$select(me.id).statuses.list({ limit: 2 }));
  out.notifications = (await alice.v1.notifications.list()).map((n) => ({ type: n.type, account: n.account.acct, status: n.status?.id }));
  const people = await alice.v2.search.list({ q: "bob" });
  const tags = await alice.v2.search.list({ q: "#clients" });
  out.search = { accounts: people.accounts.map((a) => a.acct), hashtags: tags.hashtags.map((t) => t.name) };
  out.unfollow = (await alice.v1.accounts.$select(other.id).unfollow()).following;
  out.followingAfter = await following(other.id);
  out.afterDelete = await gone(out.posted.id);
  return out;
});
