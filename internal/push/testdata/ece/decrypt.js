// Decrypts a Web Push message (RFC 8291, aes128gcm) as a user agent
// does, with http_ece: reads {"privateKey", "authSecret", "body"} (all
// base64url; privateKey the receiver's P-256 private key) from stdin and
// writes the plaintext to stdout.
const ece = require('http_ece');
const crypto = require('crypto');

let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const m = JSON.parse(input);
  const receiver = crypto.createECDH('prime256v1');
  receiver.setPrivateKey(Buffer.from(m.privateKey, 'base64url'));
  const plain = ece.decrypt(Buffer.from(m.body, 'base64url'), {
    version: 'aes128gcm',
    privateKey: receiver,
    authSecret: m.authSecret,
  });
  process.stdout.write(plain);
});
