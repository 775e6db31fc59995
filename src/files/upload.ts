// POST /api/upload: multipart parts stream into temp files; only a complete, valid upload
// is renamed into place. Any failure removes the temp files and leaves targets untouched.
import { errnoText } from '../util/errno.ts';
import { copyFile, fsync, rename } from '../util/fsp.ts';
import { fileCompleted } from '../util/completed.ts';
import { joinName } from '../util/paths.ts';
import type { Config } from '../config/config.ts';
import { Errors, HttpError } from '../http/errors.ts';
import { clientOf } from '../http/request.ts';
import { sendJson } from '../http/respond.ts';
import type { Request, Response } from '../http/types.ts';
import type { Counted } from '../metrics/registry.ts';
import type { Audit } from '../audit/trail.ts';
import { posix } from 'node:path';
import { closeFd, O, openFd, realRoot } from './confine.ts';
import { confinementRoot } from './scope-dir.ts';
import { boundaryOf, MultipartParser, type PartInfo } from './multipart.ts';
import { checkClientPath, checkFsType } from './query.ts';
import { checkFileName, closeDestination, fileInDirectory, openDirInside, resolveSavePath, type Destination } from './target.ts';
import { inDir, TempFile } from './tempfile.ts';
import { burstStarted, HeldChunk } from '../native/memory.ts';

/** Bounds the parser keeps: part header block, parts, and one plain field's value. */
export const LIMITS = { headerBytes: 8 * 1024, parts: 1000, fieldBytes: 16 * 1024 };

type Part =
  | { kind: 'file'; temp: TempFile; filename: string }
  | { kind: 'field'; name: string; chunks: Buffer[]; size: number }
  | { kind: 'skip' };

class UploadSession {
  private savePath: string | undefined;
  private fstypeSeen = false;
  private dest: Promise<Destination> | undefined;
  private root: Promise<number> | undefined;
  private readonly files: Array<{ temp: TempFile; filename: string }> = [];
  private readonly extraDirs: Destination[] = [];
  private part: Part = { kind: 'skip' };
  private failure: ((err: unknown) => void) | undefined;
  /** The request chunk the parser is reading: a temp file holds it until written. */
  private chunk: HeldChunk | undefined;

  /** What was stored, for the audit trail: the client's path of each file and its bytes. */
  readonly stored: Array<{ path: string; bytes: number }> = [];

  constructor(
    private readonly config: Config,
    private readonly baseReal: string,
    private readonly req: Request,
    private readonly confinedTo: string,
  ) {}

  /** Reads the whole request; resolves when every part is on disk (fsynced, not yet renamed). */
  receive(boundary: string): Promise<void> {
    const { req } = this;
    const parser = new MultipartParser(boundary, LIMITS, {
      start: (info) => this.startPart(info),
      data: (chunk) => this.partData(chunk),
      end: () => this.endPart(),
    });
    return new Promise<void>((resolve, reject) => {
      let total = 0;
      let ended = false;
      this.failure = (err) => {
        if (ended) return;
        ended = true;
        req.pause();
        reject(err);
      };
      req.on('data', (chunk: Buffer) => {
        if (ended) return;
        total += chunk.length;
        if (total > this.config.maxFileBytes) return this.fail(Errors.uploadTooLarge());
        const held = new HeldChunk(chunk);
        this.chunk = held;
        try {
          parser.write(chunk);
        } catch (err) {
          this.fail(err);
        }
        this.chunk = undefined;
        // A field's value and the parser's held tail are copies; a temp file holds its
        // slices until written: the chunk's memory is freed when the last lets go.
        held.drop();
      });
      req.on('end', () => {
        if (ended) return;
        if (!parser.done) return this.fail(Errors.formInvalid('unexpected end of multipart body'));
        ended = true;
        Promise.all(this.files.map((f) => f.temp.pending)).then(
          () => resolve(),
          (err) => reject(err instanceof HttpError ? err : Errors.createFailed(errnoText(err))),
        );
      });
      // Aborted by the client, or cut by a stopping agent: reading the part failed.
      req.on('close', () => {
        if (!req.complete) this.fail(Errors.uploadReadFailed());
      });
      req.on('error', () => this.fail(Errors.uploadReadFailed()));
    });
  }

  private fail(err: unknown): void {
    this.failure?.(err);
  }

  private startPart(info: PartInfo): void {
    if (info.name === 'myFile' && info.filename) {
      const dir = this.dest ? this.dest.then((d) => d.dirFd) : this.rootDir();
      const temp = new TempFile(
        dir,
        (err) => this.fail(Errors.createFailed(errnoText(err))),
        () => this.req.resume(),
      );
      this.files.push({ temp, filename: info.filename });
      this.part = { kind: 'file', temp, filename: info.filename };
    } else if (info.filename) {
      this.part = { kind: 'skip' }; // a file under another field name: not ours, not kept
    } else {
      this.part = { kind: 'field', name: info.name, chunks: [], size: 0 };
    }
  }

  private partData(chunk: Buffer): void {
    const part = this.part;
    if (part.kind === 'file') {
      if (!part.temp.push(chunk, this.chunk)) this.req.pause();
    } else if (part.kind === 'field') {
      part.size += chunk.length;
      if (part.size > LIMITS.fieldBytes) throw Errors.formInvalid(`field ${JSON.stringify(part.name.slice(0, 64))} too large`);
      part.chunks.push(Buffer.from(chunk)); // a copy: the request's chunk is released
    }
  }

  private endPart(): void {
    const part = this.part;
    this.part = { kind: 'skip' };
    if (part.kind === 'file') {
      part.temp.finish().catch(() => {}); // failures arrive through the temp file's onError
    } else if (part.kind === 'field') {
      const value = Buffer.concat(part.chunks).toString('utf8');
      if (part.name === 'saveToPath') this.setSavePath(value);
      if (part.name === 'fstype') {
        if (this.fstypeSeen) throw Errors.badField('fstype', 'must be given once');
        this.fstypeSeen = true;
        checkFsType(value);
      }
    }
  }

  private setSavePath(value: string): void {
    if (this.savePath !== undefined) throw Errors.badField('saveToPath', 'must be given once');
    this.savePath = checkClientPath(value, 'saveToPath');
    this.req.asked = { path: value };
    if (value === '') return;
    this.dest = resolveSavePath(this.config.uploadDir, this.baseReal, value, this.confinedTo);
    this.dest.catch((err) => this.fail(err));
  }

  /** Parts that come before saveToPath wait in the upload directory itself. */
  private rootDir(): Promise<number> {
    this.root ??= openDirInside(this.baseReal, this.baseReal, '.');
    return this.root;
  }

  /** Stored: their files and content bytes (what the parts held, without the multipart framing). */
  count(counted: Counted): void {
    counted.files.value += this.files.length;
    for (const f of this.files) counted.bytes.value += f.temp.bytes;
  }

  /** Checks everything, then renames each temp file over its target and fsyncs the directories. */
  async commit(): Promise<void> {
    if (!this.savePath || !this.dest) throw Errors.noSavePath();
    if (this.files.length === 0) throw Errors.noFilesUploaded();
    const dest = await this.dest;
    if (dest.name !== undefined && this.files.length > 1) throw Errors.severalFilesNeedDir();
    const places: Destination[] = [];
    for (const f of this.files) {
      if (dest.name !== undefined) {
        places.push(dest);
        continue;
      }
      const place = await fileInDirectory(dest, checkFileName(f.filename), this.baseReal);
      if (place.dirFd !== dest.dirFd) this.extraDirs.push(place);
      places.push(place);
    }
    const touched = new Set<number>();
    for (const [i, f] of this.files.entries()) {
      const place = places[i]!;
      await moveIntoPlace(f.temp, place);
      touched.add(place.dirFd);
      this.stored.push({ path: dest.name !== undefined ? this.savePath : posix.join(this.savePath, place.name!), bytes: f.temp.bytes });
    }
    // The renames are durable only once their directories are on disk.
    for (const fd of touched)
      await fsync(fd).catch((err) => {
        throw Errors.createFailed(errnoText(err));
      });
    for (const place of places) fileCompleted(joinName(place.dirReal, place.name!));
  }

  /** Removes every temp file not renamed and closes the directories. */
  async cleanup(): Promise<void> {
    await Promise.all(this.files.map((f) => f.temp.discard()));
    const dirs = [...this.extraDirs];
    if (this.dest)
      dirs.push(
        ...(await this.dest.then(
          (d) => [d],
          () => [],
        )),
      );
    for (const d of dirs) await closeDestination(d);
    if (this.root)
      await this.root
        .then(
          (fd) => closeFd(fd),
          () => {},
        )
        .catch(() => {});
  }
}

async function moveIntoPlace(temp: TempFile, place: Destination): Promise<void> {
  const from = inDir(temp.dirFd, temp.name);
  const to = inDir(place.dirFd, place.name!);
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw Errors.createFailed(errnoText(err));
    // A target directory on another file system (a mount point): copy next to it, then rename.
    const near = new TempFile(
      Promise.resolve(place.dirFd),
      () => {},
      () => {},
    );
    try {
      await near.finish();
      await copyFile(from, inDir(place.dirFd, near.name));
      const fd = await openFd(inDir(place.dirFd, near.name), O.O_RDONLY);
      await fsync(fd).finally(() => closeFd(fd));
      await rename(inDir(place.dirFd, near.name), to);
      near.markRenamed();
    } catch (copyErr) {
      throw Errors.createFailed(errnoText(copyErr));
    } finally {
      await near.discard();
    }
  }
  temp.markRenamed();
}

/** The real location of the directory uploads are confined to; a credential's directory that is gone, or a link, is 403. */
function uploadRoot(config: Config, root: string): Promise<string> {
  return realRoot(config.uploadDir, root);
}

export function uploadHandler(config: Config, counted: Counted, audit: Audit) {
  return async (req: Request, res: Response): Promise<void> => {
    // Refused before a byte of the body is read (onError adds Connection: close).
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > config.maxFileBytes) throw Errors.uploadTooLarge();
    const boundary = boundaryOf(req.headers['content-type']);
    const root = confinementRoot(config.uploadDir, req.user);
    const session = new UploadSession(config, await uploadRoot(config, root), req, root);
    const burstEnded = burstStarted();
    try {
      await session.receive(boundary);
      await session.commit();
      session.count(counted);
    } finally {
      await session.cleanup();
      burstEnded();
    }
    for (const f of session.stored) {
      audit.record({
        event: 'upload',
        outcome: 'ok',
        user: req.user?.username ?? null,
        credential: req.user?.credential ?? 'none',
        client: clientOf(req),
        path: f.path,
        bytes: f.bytes,
      });
    }
    sendJson(res, 200, { message: 'Uploaded successfully' });
  };
}
