// masto.js's media, used as Elk and Phanpy use it against the retwis
// server that its Go test started (internal/api/npm_masto_test.go,
// TestMastoJSMedia): a picture uploaded with its alt text (v2: the
// library polls until it is processed), posted with no text, sensitive,
// read back, its alt text changed by an edit; and a file that is no
// picture, refused. The environment: RETWIS_URL, the server;
// RETWIS_TOKEN, alice's; RETWIS_PHOTO, the path of a JPEG. It reports
// what the library read, which the test checks. The protocol:
// harness.mjs.
import { readFileSync } from "node:fs";

import { MastoHttpError, createRestAPIClient } from "masto";

import { env, run } from "./harness.mjs";

const client = createRestAPIClient({ url: env("RETWIS_URL"), accessToken: env("RETWIS_TOKEN"), timeout: 10_000 });

// pick keeps what the test checks of a MediaAttachment.
const pick = (m) => ({ id: m.id, type: m.type, url: m.url, previewUrl: m.previewUrl, description: m.description,
  blurhash: m.blurhash, meta: m.meta });

run(async () => {
  const photo = new Blob([readFileSync(env("RETWIS_PHOTO"))], { type: "image/jpeg" });
  const uploaded = await client.v2.media.create({ file: photo, description: "a gradient", focus: "0.25,0.5" });
  const ready = await client.v1.media.$select(uploaded.id).fetch();
  const posted = await client.v1.statuses.create({ status: "", mediaIds: [uploaded.id], sensitive: true });
  const read = await client.v1.statuses.$select(posted.id).fetch();
  const edited = await client.v1.statuses.$select(posted.id).update({
    status: "now with words", mediaIds: [uploaded.id], mediaAttributes: [{ id: uploaded.id, description: "a gradient, edited" }],
  });
  let refused = 0, message = "";
  try {
    await client.v2.media.create({ file: new Blob(["<svg xmlns='http://www.w3.org/2000/svg'/>"], { type: "image/svg+xml" }) });
  } catch (err) {
    refused = err instanceof MastoHttpError ? err.statusCode : -1;
    message = err.message;
  }
  return {
    uploaded: pick(uploaded), ready: pick(ready),
    posted: { id: posted.id, content: posted.content, sensitive: posted.sensitive, media: posted.mediaAttachments.map(pick) },
    read: { sensitive: read.sensitive, media: read.mediaAttachments.map(pick) },
    edited: { content: edited.content, media: edited.mediaAttachments.map(pick) },
    refused, message,
  };
});
