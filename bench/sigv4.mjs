// Signing S3 requests: aws4 (npm) against src/outbox/sigv4.ts, same request, same signature,
// signatures per second and the bundle bytes each adds (docs/decisions.md, "Signing S3 requests").
// Run: node --import tsx bench/sigv4.mjs
import aws4 from 'aws4';
import { sign } from '../src/outbox/sigv4.ts';

const creds = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', region: 'eu-west-1' };
const hash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const now = new Date('2026-11-28T01:47:00Z');
const path = '/bucket/dev-1/recordings/rec%20%C3%A9t%C3%A9.flac';
const query = { partNumber: '3', uploadId: 'abc/def=' };
const mine = () =>
  sign(
    { method: 'PUT', host: '127.0.0.1:9000', path, query, headers: { 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==' }, payloadHash: hash },
    creds,
    now,
  );
const theirs = () => {
  const opts = {
    method: 'PUT',
    host: '127.0.0.1:9000',
    path: `${path}?partNumber=3&uploadId=abc%2Fdef%3D`,
    service: 's3',
    region: creds.region,
    headers: { 'Content-MD5': '1B2M2Y8AsgTpgAmY7PhCfg==', 'X-Amz-Content-Sha256': hash, 'X-Amz-Date': '20261128T014700Z' },
  };
  return aws4.sign(opts, creds).headers;
};
const a = mine().Authorization.split('Signature=')[1];
const b = theirs().Authorization.split('Signature=')[1];
console.log(`same signature: ${a === b} (${a.slice(0, 16)}… / ${b.slice(0, 16)}…)`);
for (const [name, f] of [
  ['own', mine],
  ['aws4', theirs],
  ['own', mine],
  ['aws4', theirs],
]) {
  const n = 50_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f();
  const s = Number(process.hrtime.bigint() - t) / 1e9;
  console.log(`${name}: ${Math.round(n / s)} signatures/s (${((s / n) * 1e6).toFixed(1)} µs each)`);
}
