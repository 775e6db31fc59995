// GET (and HEAD) /api/download: open once, check the descriptor, stream exactly what was checked.
import { lazy } from '../util/lazy.ts';
import { errnoText } from '../util/errno.ts';
import { read, type Stats } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { getSystemErrorName } from 'node:util';
import { basename } from 'node:path';
import type { Config } from '../config/config.ts';
import { Errors } from '../http/errors.ts';
import { clientOf } from '../http/request.ts';
import { countSentAside } from '../http/log.ts';
import type { Log } from '../util/logger.ts';
import { socketFd } from '../http/node-internals.ts';
import type { Request, Response } from '../http/types.ts';
import type { Counted } from '../metrics/registry.ts';
import type { Audit } from '../audit/trail.ts';
import { closeFd, openConfined } from './confine.ts';
import { confinementRoot } from './scope-dir.ts';
import { evaluate, validators } from './conditional.ts';
import { contentDisposition, parseRange } from './headers.ts';
import { checkClientPath, checkFsType, parseQuery } from './query.ts';
import { cannotSend, sendfileAddon, type SendfileAddon } from './sendfile.ts';
import { unboundUnsent } from '../http/unsent.ts';

/** mime-types parses its database (~200 KB) when loaded: on the first download, not at start. */
const mimeTypes = lazy('mime-types', () => import('mime-types'));
const contentType = async (name: string) => (await mimeTypes()).lookup(name) || 'application/octet-stream';

/** Large reads when copying: measured, 64 KiB chunks reached only 43% of nginx's throughput. */
const CHUNK = 1024 * 1024;

/** Opens the file a client names and runs every check on the descriptor; the fd is the caller's. */
async function openChecked(config: Config, filepath: string, root: string): Promise<{ fd: number; st: Stats }> {
  const { fd, st } = await openConfined(config.baseDir, filepath, root);
  const refusal = st.isDirectory()
    ? Errors.isDirectory(filepath)
    : !st.isFile()
      ? Errors.notRegular()
      : st.size === 0
        ? Errors.fileEmpty()
        : st.size > config.maxFileBytes
          ? Errors.fileTooLarge(config.maxFileBytes)
          : null;
  if (refusal) {
    await closeFd(fd);
    throw refusal;
  }
  return { fd, st };
}

function readAt(fd: number, buf: Buffer, len: number, pos: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buf, 0, len, pos, (err, n) => (err ? reject(err) : resolve(n))));
}

/** One transfer: bytes start..end of `fd` to `res`, and whether the client went away. */
interface Transfer {
  fd: number;
  start: number;
  end: number;
  res: Response;
  /** Resolves when the response closes (done or the client left). */
  closed: Promise<void>;
  gone: boolean;
  /** Body bytes handed to the kernel (transfer_bytes_total), and whole downloads. */
  counted: Counted;
  /** Body bytes of this transfer handed to the kernel (the audit trail's `bytes`). */
  sent: number;
}

/** Node's write of body bytes; resolves once they reached the kernel, and counts them then. */
function writeCounted(t: Transfer, chunk: Buffer): Promise<void> {
  return new Promise((resolve) =>
    t.res.write(chunk, (err) => {
      if (!err) {
        t.counted.bytes.value += chunk.length;
        t.sent += chunk.length;
      }
      resolve();
    }),
  );
}

/** A file that shrank underway; `pos` is where the read found its end. */
const shrank = (t: Transfer, pos: number) => new Error(`file shrank while being sent (${pos - t.start} of ${t.end - t.start + 1} bytes)`);

/**
 * Copies bytes pos..end through two reused 1 MiB buffers: one is read while the other
 * drains to the socket, so memory per download is fixed at 2 MiB whatever the file size.
 * Resolves once Node handed every byte to the socket, or the client left.
 */
async function copyRange(t: Transfer, pos: number): Promise<void> {
  const size = Math.min(CHUNK, t.end - pos + 1);
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  const sent: Array<Promise<void>> = [Promise.resolve(), Promise.resolve()];
  let i = 0;
  while (pos <= t.end) {
    await Promise.race([sent[i], t.closed]); // this buffer is free again once the socket took it
    if (t.gone) return; // the client went away: stop reading
    const buf = buffers[i]!;
    const n = await readAt(t.fd, buf, Math.min(size, t.end - pos + 1), pos);
    if (n === 0) throw shrank(t, pos);
    sent[i] = writeCounted(t, buf.subarray(0, n));
    pos += n;
    i ^= 1;
  }
  await Promise.race([Promise.all(sent), t.closed]);
}

/** Bytes per sendfile(2) job: a job holds a thread-pool thread, so others get their turn. */
const SEND_MAX = 8 * 1024 * 1024;
/** Bytes sent through Node's own write when the socket buffer is full: Node waits for room. */
const WAIT_CHUNK = 16 * 1024;
const { EAGAIN, EPIPE, ECONNRESET } = osConstants.errno;

/**
 * Sends bytes start..end with sendfile(2): the kernel passes page-cache pages to the
 * socket, no copy in user space. The headers go first, so Node has nothing queued when
 * sendfile starts; whenever the socket buffer is full (-EAGAIN) the next 16 KiB go
 * through Node's write, which waits for room. Where this file system or this process
 * cannot sendfile (cannotSend), the rest is copied. A pipelined response still waiting for
 * its turn has no socket yet: copied.
 */
async function sendRange(addon: SendfileAddon, t: Transfer): Promise<void> {
  const { fd, end, res } = t;
  const handleFd = res.socket ? socketFd(res.socket) : undefined;
  if (handleFd === undefined) return copyRange(t, t.start);
  let pos = t.start;
  const buf = Buffer.allocUnsafe(Math.min(WAIT_CHUNK, end - pos + 1));
  const viaNode = async () => {
    const n = await readAt(fd, buf, Math.min(buf.length, end - pos + 1), pos);
    if (n === 0) throw shrank(t, pos);
    await Promise.race([writeCounted(t, buf.subarray(0, n)), t.closed]);
    pos += n;
  };
  // The headers go out first, in one write that a fresh connection's socket buffer takes
  // at once; should Node still hold any of it, the first bytes follow through Node's write.
  res.flushHeaders();
  const socket = res.socket!;
  // Bytes past Node only behind a head Node took: a socket whose writing side has ended
  // (or was destroyed) dropped the head, and a body sent without it would reach the
  // client as a headerless answer. Nothing more goes out then: the client gets none.
  if (!socket.writable) {
    res.destroy();
    return;
  }
  if (socket.writableLength > 0) await viaNode();
  if (t.gone || pos > end) return;
  // Node closes its descriptor when the connection ends, perhaps while a job runs; the
  // number could then name another file. The download sends on a duplicate of its own.
  const sock = addon.dup(handleFd);
  if (sock < 0) return copyRange(t, pos);
  try {
    while (pos <= end) {
      const n = await addon.sendfile(sock, fd, pos, Math.min(SEND_MAX, end - pos + 1));
      if (n > 0) {
        // sent, whether or not the client is still there
        countSentAside(res, n);
        t.counted.bytes.value += n;
        t.sent += n;
      }
      if (t.gone) return;
      if (n > 0) {
        pos += n;
      } else if (n === 0) {
        throw shrank(t, pos);
      } else if (n === -EAGAIN) {
        await viaNode();
        if (t.gone) return;
      } else if (n === -EPIPE || n === -ECONNRESET) {
        res.destroy(); // the client went away before Node noticed
        return;
      } else if (cannotSend(n)) {
        return await copyRange(t, pos);
      } else {
        throw new Error(`sendfile: ${getSystemErrorName(n)}`);
      }
    }
  } finally {
    await closeFd(sock);
  }
}

/**
 * Streams bytes start..end of the descriptor, by sendfile(2) where the addon loads, else
 * by copying. A file that shrank underway, or a read error, cuts the connection. The
 * response ends only once every byte reached the socket: one that has ended counts as
 * done for server.closeIdleConnections() (SIGTERM drain), which would cut a tail still
 * queued in Node and send a client a short file.
 */
async function pump(
  fd: number,
  start: number,
  end: number,
  res: Response,
  counted: Counted,
  log: Log,
  unavailable: (reason: string) => void,
  what: string,
  done: (bytes: number, completed: boolean) => void,
): Promise<void> {
  let markGone!: () => void;
  const t: Transfer = {
    fd,
    start,
    end,
    res,
    counted,
    sent: 0,
    gone: false,
    closed: new Promise((resolve) => {
      markGone = resolve;
    }),
  };
  let completed = false;
  res.once('close', () => {
    t.gone = true;
    markGone();
  });
  try {
    // The small bound every connection starts with (src/http/unsent.ts) would cost CPU here.
    if (res.socket) unboundUnsent(res.socket);
    const addon = sendfileAddon(unavailable);
    await (addon ? sendRange(addon, t) : copyRange(t, start));
    if (!t.gone && !res.destroyed) {
      res.end();
      counted.files.value++;
      completed = true;
    }
  } catch (err) {
    log.error(`download ${what}: failed to read file: ${errnoText(err)}`);
    res.destroy();
  } finally {
    await closeFd(fd);
    done(t.sent, completed);
  }
}

export function downloadHandler(config: Config, log: Log, counted: Counted, audit: Audit) {
  const unavailable = (reason: string) => log.warn(`downloads are copied through user space: sendfile(2) unavailable (${reason})`);
  return async (req: Request, res: Response): Promise<void> => {
    const query = parseQuery(req.search);
    const filepath = query.get('filepath');
    if (!filepath) throw Errors.filePathRequired();
    checkFsType(query.get('fstype'));
    checkClientPath(filepath, 'filepath');
    req.asked = { path: filepath };

    const { fd, st } = await openChecked(config, filepath, confinementRoot(config.baseDir, req.user));
    const name = basename(filepath);
    // Preconditions (RFC 9110 §13.2.2) on validators from the fstat above: no extra call.
    const v = validators(st);
    const cond = evaluate(req.headers, v);
    if (cond.status !== null) {
      await closeFd(fd);
      if (cond.status === 412) throw Errors.preconditionFailed();
      // 304: the headers a 200 would carry that describe the file itself, no body (§15.4.5).
      res.writeHead(304, { ETag: v.etag, 'Last-Modified': v.lastModified, 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    const range = parseRange(cond.range ? req.headers.range : undefined, st.size);
    if (range === 'unsatisfiable') {
      await closeFd(fd);
      throw Errors.rangeNotSatisfiable(st.size);
    }
    const start = range?.start ?? 0;
    const end = range?.end ?? st.size - 1;
    const headers: Record<string, string | number> = {
      'Content-Type': await contentType(name),
      'Content-Disposition': contentDisposition(name),
      'Content-Length': end - start + 1,
      'Content-Description': 'File Transfer',
      'Content-Transfer-Encoding': 'binary',
      'X-Content-Type-Options': 'nosniff',
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'no-store',
      ETag: v.etag,
      'Last-Modified': v.lastModified,
    };
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${st.size}`;
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD') {
      await closeFd(fd);
      res.end();
      return;
    }
    const status = range ? 206 : 200;
    await pump(fd, start, end, res, counted, log, unavailable, filepath, (bytes, completed) =>
      audit.record({
        event: 'download',
        outcome: completed ? 'ok' : 'failed',
        user: req.user?.username ?? null,
        credential: req.user?.credential ?? 'none',
        client: clientOf(req),
        path: filepath,
        bytes,
        status,
        completed,
      }),
    );
  };
}
