// A small streaming multipart/form-data parser (RFC 7578) with hard limits. Chosen over
// formidable and busboy after measuring them: see docs/decisions.md. It never decodes HTML
// entities in names, bounds part headers, and hands body bytes on without copying them.
import { Errors } from '../http/errors.ts';

export interface PartInfo {
  /** The form field name. */
  name: string;
  /** The client's file name; undefined (or empty) for a plain field. */
  filename: string | undefined;
}

export interface PartHandler {
  start(part: PartInfo): void;
  data(chunk: Buffer): void;
  end(): void;
}

export interface MultipartLimits {
  /** Bytes of one part's header block. */
  headerBytes: number;
  /** Number of parts, fields and files together. */
  parts: number;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

/** The boundary of a `multipart/form-data` Content-Type, or 400. */
export function boundaryOf(contentType: string | undefined): string {
  const m = /^\s*multipart\/form-data\s*;(.*)$/i.exec(contentType ?? '');
  const b = m && /(?:^|;)\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(m[1] ?? '');
  if (!b) throw Errors.formInvalid("request Content-Type isn't multipart/form-data with a boundary");
  return b[1] ?? b[2] ?? '';
}

/** `key=value` and `key="quoted \" value"` parameters of a Content-Disposition value. */
function dispositionParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let m; (m = re.exec(value)); ) {
    const key = (m[1] ?? '').toLowerCase();
    const raw = m[2] !== undefined ? m[2].replace(/\\(["\\])/g, '$1') : (m[3] ?? '').trim();
    if (!params.has(key)) params.set(key, raw);
  }
  return params;
}

/** RFC 8187 `UTF-8''%e2%82%ac` (filename*), or undefined when malformed. */
function extValue(value: string): string | undefined {
  const m = /^utf-8'[^']*'(.*)$/i.exec(value);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1] ?? '');
  } catch {
    return undefined;
  }
}

function parseHeaders(block: string): PartInfo {
  let disposition: string | undefined;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-disposition') {
      disposition = line.slice(colon + 1).trim();
    }
  }
  if (!disposition || !/^form-data\s*(;|$)/i.test(disposition)) {
    throw Errors.formInvalid('a part has no Content-Disposition: form-data header');
  }
  const params = dispositionParams(disposition.slice(9));
  const name = params.get('name');
  if (name === undefined) throw Errors.formInvalid('a part has no field name');
  const star = params.get('filename*');
  const filename = (star !== undefined ? extValue(star) : undefined) ?? params.get('filename');
  return { name, filename };
}

type State = 'preamble' | 'delimiter' | 'headers' | 'body' | 'done';

export class MultipartParser {
  private readonly delimiter: Buffer;
  // The virtual CRLF lets the first boundary match the same "\r\n--boundary" as the others.
  private held: Buffer = Buffer.from('\r\n');
  private state: State = 'preamble';
  private parts = 0;

  constructor(
    boundary: string,
    private readonly limits: MultipartLimits,
    private readonly handler: PartHandler,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  get done(): boolean {
    return this.state === 'done';
  }

  /** Feeds bytes; throws an HttpError on malformed input or a broken limit. */
  write(chunk: Buffer): void {
    if (this.held.length > 0 && (this.state === 'body' || this.state === 'preamble')) this.settleHeld(chunk);
    const buf = this.held.length > 0 ? Buffer.concat([this.held, chunk]) : chunk;
    this.held = EMPTY;
    let pos = 0;
    while (pos <= buf.length && this.state !== 'done') {
      if (this.state === 'preamble' || this.state === 'body') {
        const at = buf.indexOf(this.delimiter, pos);
        if (at === -1) {
          // Keep what could be the start of a delimiter split across chunks.
          const keep = Math.min(this.delimiter.length - 1, buf.length - pos);
          const safe = buf.length - keep;
          if (this.state === 'body' && safe > pos) this.handler.data(buf.subarray(pos, safe));
          this.held = Buffer.from(buf.subarray(safe));
          return;
        }
        if (this.state === 'body') {
          if (at > pos) this.handler.data(buf.subarray(pos, at));
          this.handler.end();
        }
        pos = at + this.delimiter.length;
        this.state = 'delimiter';
      } else if (this.state === 'delimiter') {
        if (buf.length - pos < 2) break;
        if (buf[pos] === 0x2d && buf[pos + 1] === 0x2d) {
          this.state = 'done'; // the close delimiter; the epilogue is ignored
          return;
        }
        const eol = buf.indexOf(CRLF, pos);
        if (eol === -1 && buf.length - pos > 64) throw Errors.formInvalid('malformed boundary line');
        if (eol === -1) break;
        // Transport padding (spaces, tabs) may follow a boundary before its CRLF.
        if (!/^[ \t]*$/.test(buf.toString('latin1', pos, eol))) throw Errors.formInvalid('malformed boundary line');
        if (++this.parts > this.limits.parts) throw Errors.formInvalid(`more than ${this.limits.parts} parts`);
        pos = eol; // the headers block starts with this CRLF, so an empty block is "\r\n\r\n"
        this.state = 'headers';
      } else {
        const end = buf.indexOf(HEADER_END, pos);
        if ((end === -1 ? buf.length : end) - pos > this.limits.headerBytes + 2) {
          throw Errors.formInvalid('part header too large');
        }
        if (end === -1) break;
        this.handler.start(parseHeaders(buf.toString('utf8', pos + 2, end)));
        pos = end + 4;
        this.state = 'body';
      }
    }
    if (this.state !== 'done' && pos < buf.length) this.held = Buffer.from(buf.subarray(pos));
  }

  /**
   * In a body, the bytes held back from the last chunk (shorter than a delimiter) are
   * joined with only the head of the next chunk to see whether a delimiter starts in them.
   * If none does they are body bytes, passed on, and the chunk is searched as it is:
   * joining every chunk whole copied every byte of an upload (~0.2 CPU s/GB).
   */
  private settleHeld(chunk: Buffer): void {
    if (chunk.length < this.delimiter.length - 1) return; // too short to tell: join whole
    const head = Buffer.concat([this.held, chunk.subarray(0, this.delimiter.length - 1)]);
    const at = head.indexOf(this.delimiter);
    if (at !== -1 && at < this.held.length) return; // a delimiter starts here: join whole
    if (this.state === 'body') this.handler.data(this.held);
    this.held = EMPTY;
  }
}
