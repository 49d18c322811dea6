// masto.js, the library of the Elk and Phanpy apps, used as an app
// uses it against the retwis server that its Go test started
// (internal/api/npm_masto_test.go, TestMastoJS). The environment:
// RETWIS_URL, the server; RETWIS_TOKEN and RETWIS_OTHER_TOKEN, alice's
// and bob's; RETWIS_REDIRECT, where the app it registers says its codes
// go; RETWIS_TEXT and RETWIS_SPOILER, the text of alice's post and its
// content warning. It reports what the library read, which the
// test checks. The protocol: harness.mjs.
import { createHash, randomBytes } from "node:crypto";

import { MastoHttpError, createOAuthAPIClient, createRestAPIClient, createStreamingAPIClient } from "masto";

import { check, env, run, sync, within } from "./harness.mjs";

const wait = 10_000; // ms: how long a request or an event may take

const url = env("RETWIS_URL");
const alice = createRestAPIClient({ url, accessToken: env("RETWIS_TOKEN"), timeout: wait });
const bob = createRestAPIClient({ url, accessToken: env("RETWIS_OTHER_TOKEN"), timeout: wait });

// authorized registers an app, has carol approve it on the
// authorization page (the test plays her), exchanges the code with its
// PKCE verifier for a token, and reads whose token it is and which
// app's.
async function authorized() {
  const scopes = "read write follow", redirectUri = env("RETWIS_REDIRECT");
  const app = await createRestAPIClient({ url, timeout: wait }).v1.apps.create({
    clientName: "masto.js test", redirectUris: redirectUri, scopes, website: "https://github.com/neet/masto.js",
  });
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    response_type: "code", client_id: app.clientId, redirect_uri: redirectUri, scope: scopes,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256",
  });
  const code = await sync("approve", { url: `${url}/oauth/authorize?${query}`, user: "carol" });
  const token = await createOAuthAPIClient({ url, timeout: wait }).token.create({
    grantType: "authorization_code", clientId: app.clientId, clientSecret: app.clientSecret, redirectUri, code,
    codeVerifier: verifier, scope: scopes,
  });
  const carol = createRestAPIClient({ url, accessToken: token.accessToken, timeout: wait });
  const [me, used] = await Promise.all([carol.v1.accounts.verifyCredentials(), carol.v1.apps.verifyCredentials()]);
  return { app: used.name, scope: token.scope, tokenType: token.tokenType, acct: me.acct };
}

// ids pages through a list as the library does, by the Link header's
// "next", and returns the ids of each page.
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
// once the server listens, and returns the post and what the stream
// carried of it: its update and the notification of the mention.
async function streamed(streamingApiUrl) {
  const streaming = createStreamingAPIClient({ streamingApiUrl, accessToken: env("RETWIS_TOKEN"), retry: 1 });
  try {
    const events = streaming.user.subscribe()[Symbol.asyncIterator]();
    let next = events.next(); // connects and subscribes
    await sync("subscribed");
    const mention = await bob.v1.statuses.create({ status: "@alice hello from bob" });
    const seen = {};
    await within(wait, `the update and the notification of bob's post ${mention.id} on alice's user stream`, (async () => {
      while (!seen.update || !seen.notification) {
        const { value, done } = await next;
        check(!done, "the user stream ended");
        next = events.next();
        const st = value.event === "notification" ? value.payload.status : value.payload;
        if (st?.id === mention.id) {
          seen[value.event] = { stream: value.stream, id: st.id, author: st.account.acct, type: value.payload.type };
        }
      }
    })());
    return { mention: mention.id, ...seen };
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

// conversation has alice reply to bob's post id, and reads the thread
// from both ends once delivered, and bob's mentions.
async function conversation(id) {
  const reply = await alice.v1.statuses.create({ status: "@bob thanks", inReplyToId: id });
  await sync("drained");
  const down = await alice.v1.statuses.$select(id).context.fetch();
  const up = await alice.v1.statuses.$select(reply.id).context.fetch();
  const notes = await bob.v1.notifications.list({ types: ["mention", "follow"], excludeTypes: ["follow"] });
  return {
    reply: reply.id, inReplyTo: reply.inReplyToId,
    descendants: down.descendants.map((st) => st.id), ancestors: up.ancestors.map((st) => st.id),
    bobNotifications: notes.map((n) => ({ type: n.type, account: n.account.acct, status: n.status?.id })),
  };
}

// profile changes alice's name and bio (a multipart PATCH, as the
// library sends it) and reads them back, with her preferences.
async function profile() {
  const changed = await alice.v1.accounts.updateCredentials({ displayName: "Alice A.", note: "Reads a lot" });
  const read = await alice.v1.accounts.verifyCredentials();
  const prefs = await alice.v1.preferences.fetch();
  return {
    displayName: changed.displayName, readDisplayName: read.displayName, note: read.source.note,
    visibility: prefs["posting:default:visibility"],
  };
}

// explore reads what an app's explore page shows: the trends (of tags,
// posts and links) and the instance's rules.
async function explore() {
  const [tags, statuses, links, rules] = await Promise.all([alice.v1.trends.tags.list(), alice.v1.trends.statuses.list(),
    alice.v1.trends.links.list(), alice.v1.instance.rules.list()]);
  return { tags: tags.map((t) => t.name), statuses: statuses.length, links: links.length, rules: rules.length };
}

// interactions has bob favourite, boost and bookmark alice's post id,
// and alice edit it and post for her followers only and to bob alone;
// then, once delivered, reads what the library sees of them all, and
// takes the favourite and the boost back.
async function interactions(id) {
  const post = bob.v1.statuses.$select(id);
  const faved = await post.favourite();
  const boost = await post.reblog();
  const marked = await post.bookmark();
  const edited = await alice.v1.statuses.$select(id).update({ status: "alice two, edited" });
  const history = await alice.v1.statuses.$select(id).history.list();
  const followersOnly = await alice.v1.statuses.create({ status: "for my followers", visibility: "private" });
  const direct = await alice.v1.statuses.create({ status: "@bob just you", visibility: "direct" });
  await sync("drained");
  const seen = await post.fetch();
  const lists = {
    favourites: (await bob.v1.favourites.list()).map((st) => st.id),
    bookmarks: (await bob.v1.bookmarks.list()).map((st) => st.id),
    conversations: (await bob.v1.conversations.list()).map((c) => c.lastStatus?.id),
    favouritedBy: (await post.favouritedBy.list()).map((a) => a.acct),
    rebloggedBy: (await post.rebloggedBy.list()).map((a) => a.acct),
    alicesNotes: (await alice.v1.notifications.list({ types: ["favourite", "reblog"] })).map((n) => `${n.type}:${n.account.acct}`).sort(),
  };
  const unfaved = await post.unfavourite();
  const unboosted = await post.unreblog();
  return {
    favourited: faved.favourited, boostOf: boost.reblog?.id, boostReblogged: boost.reblogged, bookmarked: marked.bookmarked,
    edited: Boolean(edited.editedAt), editedContent: edited.content, history: history.length,
    seen: {
      favourites: seen.favouritesCount, reblogs: seen.reblogsCount, favourited: seen.favourited, reblogged: seen.reblogged,
      bookmarked: seen.bookmarked, edited: Boolean(seen.editedAt),
    },
    visibilities: [followersOnly.visibility, direct.visibility], direct: direct.id, ...lists,
    unfavourited: !unfaved.favourited, unreblogged: !unboosted.reblogged,
  };
}

run(async () => {
  const out = { instance: await instance(), oauth: await authorized() };
  const me = await alice.v1.accounts.verifyCredentials();
  out.me = { id: me.id, username: me.username, acct: me.acct };
  const other = await alice.v1.accounts.lookup({ acct: "bob" });
  out.follow = (await alice.v1.accounts.$select(other.id).follow()).following;
  out.following = await following(other.id);
  out.stream = await streamed(out.instance.streaming);
  Object.assign(out, await conversation(out.stream.mention));
  out.plain = [];
  for (const status of ["alice one #clients", "alice two"]) {
    out.plain.push((await alice.v1.statuses.create({ status })).id);
  }
  Object.assign(out, await post());
  await sync("drained");
  out.home = await ids(alice.v1.timelines.home.list({ limit: 2 }));
  out.newer = (await alice.v1.timelines.home.list({ minId: out.plain[0] })).map((st) => st.id);
  out.public = await ids(alice.v1.timelines.public.list({ limit: 2 }));
  out.tag = await ids(alice.v1.timelines.tag.$select("Clients").list());
  out.statuses = await ids(alice.v1.accounts.$select(me.id).statuses.list({ limit: 2 }));
  out.noReplies = await ids(alice.v1.accounts.$select(me.id).statuses.list({ excludeReplies: true }));
  const bobNow = await alice.v1.accounts.$select(other.id).fetch();
  out.bob = { acct: bobNow.acct, followers: bobNow.followersCount, statuses: bobNow.statusesCount };
  out.followers = (await alice.v1.accounts.$select(other.id).followers.list()).map((a) => a.acct);
  out.notifications = (await alice.v1.notifications.list()).map((n) => ({ type: n.type, account: n.account.acct, status: n.status?.id }));
  const people = await alice.v2.search.list({ q: "bob" });
  const tags = await alice.v2.search.list({ q: "#clients" });
  out.search = { accounts: people.accounts.map((a) => a.acct), hashtags: tags.hashtags.map((t) => t.name) };
  out.explore = await explore();
  out.profile = await profile();
  out.unfollow = (await alice.v1.accounts.$select(other.id).unfollow()).following;
  out.followingAfter = await following(other.id);
  out.afterDelete = await gone(out.posted.id);
  out.interactions = await interactions(out.plain[1]);
  return out;
});
