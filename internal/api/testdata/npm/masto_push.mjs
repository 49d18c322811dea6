// masto.js's Web Push subscription, used as an app uses it against the
// retwis server that its Go test started (internal/api/npm_push_test.go,
// TestMastoJSPush): subscribe with a device's keys (masto.js sends the
// policy beside data, not in it), read the subscription back, change its
// alerts, remove it, and read it again. The environment: RETWIS_URL, the
// server; RETWIS_TOKEN, a token with the push scope. It reports what the
// library read, which the test checks. The protocol: harness.mjs.
import { createECDH, randomBytes } from "node:crypto";

import { MastoHttpError, createRestAPIClient } from "masto";

import { run } from "./harness.mjs";

const client = createRestAPIClient({ url: process.env.RETWIS_URL, accessToken: process.env.RETWIS_TOKEN, timeout: 10_000 });

// pick keeps what the test checks of a WebPushSubscription.
const pick = (s) => ({ id: s.id, endpoint: s.endpoint, alerts: s.alerts, policy: s.policy, serverKey: s.serverKey });

run(async () => {
  const device = createECDH("prime256v1");
  device.generateKeys();
  const push = client.v1.push.subscription;
  const created = await push.create({
    subscription: {
      endpoint: "https://push.example.com/send/device-1",
      keys: { p256dh: device.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url") },
    },
    data: { alerts: { mention: true, follow: true } },
    policy: "followed",
  });
  const fetched = await push.fetch();
  const updated = await push.update({ data: { alerts: { favourite: true } } });
  await push.remove();
  let afterRemove = 200;
  try {
    await push.fetch();
  } catch (err) {
    afterRemove = err instanceof MastoHttpError ? err.statusCode : -1;
  }
  return { created: pick(created), fetched: pick(fetched), updated: pick(updated), afterRemove };
});
