// The multipart parser fed the same body in every way TCP could cut it: the parts must not
// depend on where chunks end, above all near a delimiter the parser has to hold back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MultipartParser } from '../src/files/multipart.ts';

const BOUNDARY = 'XyZ-boundary-42';
const LIMITS = { headerBytes: 8 * 1024, parts: 100 };

interface Parsed {
  name: string;
  filename: string | undefined;
  data: string;
}

function parse(chunks: Buffer[]): Parsed[] {
  const parts: Parsed[] = [];
  let current: { name: string; filename: string | undefined; bufs: Buffer[] } | undefined;
  const parser = new MultipartParser(BOUNDARY, LIMITS, {
    start: (info) => {
      current = { ...info, bufs: [] };
    },
    data: (chunk) => {
      current!.bufs.push(Buffer.from(chunk));
    },
    end: () => {
      parts.push({ name: current!.name, filename: current!.filename, data: Buffer.concat(current!.bufs).toString('latin1') });
      current = undefined;
    },
  });
  for (const c of chunks) parser.write(c);
  assert.ok(parser.done, 'parser reached the close delimiter');
  return parts;
}

/** File contents that look like the start of a delimiter, split anywhere. */
const TRICKY = [
  '\r\n--XyZ-boundary-4',
  '\r\n--XyZ-boundary-',
  '\r\n--XyZ',
  '\r\n-',
  '\r',
  '--XyZ-boundary-42', // no CRLF before it: data, not a delimiter
  '\r\n\r\n--\r\n',
].join('payload');

function body(file: string): Buffer {
  return Buffer.from(
    [
      'preamble to ignore',
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="saveToPath"\r\n\r\nsub/dir`,
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="myFile"; filename="a b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n${file}`,
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="empty"\r\n\r\n`,
      `\r\n--${BOUNDARY}--\r\nepilogue`,
    ].join(''),
    'latin1',
  );
}

const expected: Parsed[] = [
  { name: 'saveToPath', filename: undefined, data: 'sub/dir' },
  { name: 'myFile', filename: 'a b.bin', data: TRICKY },
  { name: 'empty', filename: undefined, data: '' },
];

const t = suite('multipart parser');

t('one chunk', () => {
  assert.equal(parse([body(TRICKY)]), expected);
});

t('two chunks, cut at every position', () => {
  const b = body(TRICKY);
  for (let i = 1; i < b.length; i++) {
    assert.equal(parse([b.subarray(0, i), b.subarray(i)]), expected, `cut at ${i}`);
  }
});

t('three chunks, the middle one 1 to 40 bytes long, at every position', () => {
  const b = body(TRICKY);
  for (let len = 1; len <= 40; len++) {
    for (let i = 1; i + len < b.length; i++) {
      assert.equal(parse([b.subarray(0, i), b.subarray(i, i + len), b.subarray(i + len)]), expected, `cut at ${i}+${len}`);
    }
  }
});

t('byte by byte, and in chunks of every size up to the body', () => {
  const b = body(TRICKY);
  for (let size = 1; size <= b.length; size++) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < b.length; i += size) chunks.push(b.subarray(i, i + size));
    assert.equal(parse(chunks), expected, `chunks of ${size}`);
  }
});

t('a large file in 64 KiB chunks keeps every byte', () => {
  const file = Buffer.alloc(1 << 20);
  for (let i = 0; i < file.length; i++) file[i] = (i * 7919) % 251;
  // Plant delimiter look-alikes across chunk edges.
  for (let at = 65536 - 10; at < file.length; at += 65536) file.write('\r\n--XyZ-boundary-4', at, 'latin1');
  const b = body(file.toString('latin1'));
  const chunks: Buffer[] = [];
  for (let i = 0; i < b.length; i += 65536) chunks.push(b.subarray(i, i + 65536));
  const parts = parse(chunks);
  assert.is(parts[1]!.data.length, file.length);
  assert.ok(Buffer.from(parts[1]!.data, 'latin1').equals(file));
});

t.run();
