// megalodon, the library of the Whalebird and Fedistar apps, used as an
// app uses it against the retwis server that its Go test started
// (internal/api/npm_megalodon_test.go, TestMegalodon): it detects the
// server through NodeInfo, registers an app whose redirect URI has a
// custom scheme (a mobile app's), has dave approve it, and as dave
// follows alice, listens to his user stream over a WebSocket while she
// mentions him, posts, reads his home timeline and notifications, and
// saves and reads his markers. The environment: RETWIS_URL, the server;
// RETWIS_TOKEN, alice's; RETWIS_REDIRECT, the app's redirect URI. It
// reports what the library read, which the test checks. The protocol:
// harness.mjs.
import generator, { detector } from "megalodon";

import { check, env, run, sync, within } from "./harness.mjs";

const wait = 10_000; // ms: how long an event may take

const url = env("RETWIS_URL");

// authorized registers an app, has dave approve it on the authorization
// page (the test plays him), exchanges the code for a token, and returns
// a client with it, with what the token and its app say.
async function authorized(sns) {
  const redirect = env("RETWIS_REDIRECT");
  const app = await generator(sns, url).registerApp("megalodon test", {
    scopes: ["read", "write", "follow"], redirect_uris: redirect, website: "https://github.com/h3poteto/megalodon",
  });
  const code = await sync("approve", { url: app.url, user: "dave" });
  const token = await generator(sns, url).fetchAccessToken(app.client_id, app.client_secret, code, redirect);
  const dave = generator(sns, url, token.access_token);
  const used = await dave.verifyAppCredentials();
  return { dave, oauth: { app: used.data.name, scope: token.scope, tokenType: token.token_type, redirect: app.redirect_uri } };
}

// streamed opens dave's user stream, has alice mention him once the
// server listens, and returns her post and the events the stream
// carried of it.
async function streamed(dave, alice) {
  const stream = await dave.userStreaming();
  const seen = {};
  try {
    await within(wait, "the user stream's connection", new Promise((resolve, reject) => {
      stream.once("connect", resolve);
      stream.once("error", reject);
    }));
    await sync("subscribed");
    const events = new Promise((resolve) => {
      const done = () => seen.update && seen.notification && resolve();
      stream.on("update", (st) => { seen.update ??= { id: st.id, author: st.account.acct }; done(); });
      stream.on("notification", (n) => { seen.notification ??= { id: n.status?.id, author: n.account.acct, type: n.type }; done(); });
    });
    const mention = (await alice.postStatus("@dave hello from alice")).data;
    await within(wait, `the update and the notification of alice's post ${mention.id} on dave's user stream`, events);
    return { mention: mention.id, ...seen };
  } finally {
    stream.stop();
  }
}

run(async () => {
  const sns = await detector(url);
  check(sns === "mastodon", `detector said ${sns}`);
  const { dave, oauth } = await authorized(sns);
  const alice = generator(sns, url, env("RETWIS_TOKEN"));
  const me = (await dave.verifyAccountCredentials()).data;
  const aliceID = (await alice.verifyAccountCredentials()).data.id;
  const follow = (await dave.followAccount(aliceID)).data;
  const stream = await streamed(dave, alice);
  const own = (await dave.postStatus("dave's first post", { visibility: "public" })).data;
  await sync("drained");
  const home = (await dave.getHomeTimeline({ limit: 10 })).data.map((st) => st.id);
  const notes = (await dave.getNotifications()).data.map((n) => ({ type: n.type, account: n.account.acct, status: n.status?.id }));
  await dave.saveMarkers({ home: { last_read_id: home[0] }, notifications: { last_read_id: (await dave.getNotifications()).data[0].id } });
  const markers = (await dave.getMarkers(["home", "notifications"])).data;
  return {
    sns, oauth, me: { username: me.username, acct: me.acct }, following: follow.following, stream, own: own.id, home,
    notifications: notes, markers: { home: markers.home?.last_read_id, notifications: markers.notifications?.last_read_id },
  };
});
