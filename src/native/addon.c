// The agent's one Node-API addon: what Node cannot do. Built by build.mjs for each
// architecture and carried in the executable; loaded by src/native/addon.ts.
//
// sendfile(2) for downloads (src/files/sendfile.ts): Node has no zero-copy send.
//   dup(fd) -> fd              a descriptor of the connection that only the download owns
//                              (close it with fs.close): Node may close its own at any time,
//                              and a number closed under a running send could be reused
//   sendfile(out, in, offset, count) -> Promise<number>
//                              bytes sent, 0 at the end of the file, or -errno; runs on
//                              libuv's thread pool (a page-cache miss waits there, not on
//                              the event loop); `out` is non-blocking, so it never waits
//                              for the client: a full socket buffer answers -EAGAIN
//
// systemd (src/systemd/): Node has no unix datagram socket and no descriptor passing.
//
//   notify(socket, text[, fd]) -> 0 or -errno
//                              one datagram to the service manager's notification socket
//                              (sd_notify(3)): a path, or an abstract name written with a
//                              leading '@'; with `fd`, that descriptor goes along
//                              (SCM_RIGHTS: FDSTORE=1); never blocks (MSG_DONTWAIT)
//   listening(fd) -> "address port", or -errno
//                              the local address of an inherited listening TCP socket
//                              (LISTEN_FDS), which it marks close-on-exec so that sox and
//                              arecord do not hold the port; -ENOTSOCK, -EINVAL (not a
//                              listening stream) or -EAFNOSUPPORT for anything else
//
// A pipe for a child's output (src/audio/capture.ts): Node makes a child's stdio a socket
// pair read through a stream, a new buffer and a stream event per read.
//   pipe() -> [readFd, writeFd], or -errno
//                              pipe2(O_CLOEXEC): the write end goes to the child as its
//                              stdout (dup2 in the child clears the flag there), the read
//                              end to a net.Socket reading into one reused buffer (onread)
//
// glibc's allocator (src/native/memory.ts): Node exposes none of it.
//   tuneAllocator() -> 1, or 0 without glibc
//                              a fixed mmap threshold (128 KiB, glibc's default) and at
//                              most 2 arenas: glibc otherwise raises the threshold to the
//                              size of each large block freed (up to 32 MiB), and a 16 MiB
//                              password hash then stays in the arena of each pool thread
//                              that ran one (measured: +64 MB after 5 logins, not +16)
//   trim() -> 1 when memory went back to the kernel, else 0
//                              malloc_trim(0): free pages anywhere in the heaps, not only
//                              at their top, are returned (what an upload burst left)
//
// The kernel's clock discipline (src/util/clock.ts): Node cannot ask it.
//   adjtimex() -> the status flags of adjtimex(2) (>= 0), or -errno
//                              a read only (modes 0, no privilege needed); STA_UNSYNC (0x40)
//                              set means no time service has synchronized the clock
//
// A connection's unsent bytes (src/http/unsent.ts): Node has no setsockopt.
//   limitUnsent(fd, bytes) -> 0 or -errno
//                              TCP_NOTSENT_LOWAT: the kernel takes a write only while fewer
//                              than `bytes` wait unsent in the socket, so a client that
//                              reads slowly holds that much kernel memory, not the whole
//                              autotuned buffer (~1.3 MB per loopback connection)
#define _GNU_SOURCE // pipe2
#define NAPI_VERSION 8
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/timex.h>
#include <sys/un.h>
#include <unistd.h>
#include <node_api.h>

typedef struct {
  int out, in;
  int64_t offset, count, result;
  napi_async_work work;
  napi_deferred deferred;
} Job;

static napi_value fail(napi_env env, const char *msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

static void run(napi_env env, void *data) {
  (void)env;
  Job *job = data;
  off_t offset = (off_t)job->offset;
  ssize_t n = sendfile(job->out, job->in, &offset, (size_t)job->count);
  job->result = n < 0 ? -(int64_t)errno : (int64_t)n;
}

static void done(napi_env env, napi_status status, void *data) {
  Job *job = data;
  napi_value result;
  if (status == napi_ok && napi_create_int64(env, job->result, &result) == napi_ok) {
    napi_resolve_deferred(env, job->deferred, result);
  } else {
    napi_value msg, err;
    napi_create_string_utf8(env, "sendfile: job cancelled", NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &err);
    napi_reject_deferred(env, job->deferred, err);
  }
  napi_delete_async_work(env, job->work);
  free(job);
}

static napi_value Sendfile(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], promise, name;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 4) return fail(env, "sendfile(out, in, offset, count)");
  Job *job = calloc(1, sizeof *job);
  if (!job) return fail(env, "sendfile: out of memory");
  if (napi_get_value_int32(env, argv[0], &job->out) != napi_ok || napi_get_value_int32(env, argv[1], &job->in) != napi_ok ||
      napi_get_value_int64(env, argv[2], &job->offset) != napi_ok || napi_get_value_int64(env, argv[3], &job->count) != napi_ok ||
      job->out < 0 || job->in < 0 || job->offset < 0 || job->count <= 0) {
    free(job);
    return fail(env, "sendfile: descriptors, offset and count must be non-negative integers, count > 0");
  }
  if (napi_create_promise(env, &job->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "sendfile", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, run, done, job, &job->work) != napi_ok) {
    free(job);
    return fail(env, "sendfile: could not queue the job");
  }
  if (napi_queue_async_work(env, job->work) != napi_ok) {
    napi_delete_async_work(env, job->work);
    free(job);
    return fail(env, "sendfile: could not queue the job");
  }
  return promise;
}

/** The one argument of f(fd): a descriptor, >= 0. */
static int fd_arg(napi_env env, napi_callback_info info, int32_t *fd) {
  size_t argc = 1;
  napi_value argv[1];
  return napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 1 &&
         napi_get_value_int32(env, argv[0], fd) == napi_ok && *fd >= 0;
}

static napi_value Dup(napi_env env, napi_callback_info info) {
  napi_value result;
  int32_t fd;
  if (!fd_arg(env, info, &fd)) return fail(env, "dup(fd)");
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  napi_create_int32(env, copy < 0 ? -errno : copy, &result);
  return result;
}

/** A JS string argument into a malloc'd C string (NULL on failure). */
static char *string_arg(napi_env env, napi_value value, size_t *length) {
  size_t n;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &n) != napi_ok) return NULL;
  char *buf = malloc(n + 1);
  if (!buf) return NULL;
  if (napi_get_value_string_utf8(env, value, buf, n + 1, &n) != napi_ok) {
    free(buf);
    return NULL;
  }
  *length = n;
  return buf;
}

static int send_notification(const char *path, size_t path_len, const char *text, size_t text_len, int fd) {
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if (path_len == 0 || path_len >= sizeof sa.sun_path || (path[0] != '/' && path[0] != '@')) return -EINVAL;
  memcpy(sa.sun_path, path, path_len);
  if (path[0] == '@') sa.sun_path[0] = 0; // abstract namespace
  struct iovec iov = { .iov_base = (void *)text, .iov_len = text_len };
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_name = &sa;
  mh.msg_namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_len);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  union { struct cmsghdr align; char buf[CMSG_SPACE(sizeof(int))]; } control;
  if (fd >= 0) {
    memset(&control, 0, sizeof control);
    mh.msg_control = control.buf;
    mh.msg_controllen = sizeof control.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -errno;
  int r = sendmsg(s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 ? -errno : 0;
  close(s);
  return r;
}

static napi_value Notify(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      (argc == 3 && (napi_get_value_int32(env, argv[2], &fd) != napi_ok || fd < 0))) return fail(env, "notify(socket, text[, fd])");
  size_t path_len, text_len;
  char *path = string_arg(env, argv[0], &path_len);
  char *text = path ? string_arg(env, argv[1], &text_len) : NULL;
  if (!path || !text) {
    free(path);
    return fail(env, "notify: socket and text must be strings");
  }
  int r = send_notification(path, path_len, text, text_len, fd);
  free(path);
  free(text);
  napi_create_int32(env, r, &result);
  return result;
}

static napi_value Listening(napi_env env, napi_callback_info info) {
  napi_value result;
  int32_t fd;
  if (!fd_arg(env, info, &fd)) return fail(env, "listening(fd)");
  int type = 0, accepting = 0, r = 0;
  socklen_t len = sizeof type;
  struct sockaddr_storage ss;
  socklen_t sslen = sizeof ss;
  char host[INET6_ADDRSTRLEN], text[INET6_ADDRSTRLEN + 8];
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0) r = -errno;
  else if ((len = sizeof accepting, getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &len) < 0)) r = -errno;
  else if (type != SOCK_STREAM || !accepting) r = -EINVAL;
  else if (getsockname(fd, (struct sockaddr *)&ss, &sslen) < 0) r = -errno;
  else if (ss.ss_family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&ss;
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    snprintf(text, sizeof text, "%s %u", host, ntohs(a->sin_port));
  } else if (ss.ss_family == AF_INET6) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    snprintf(text, sizeof text, "%s %u", host, ntohs(a->sin6_port));
  } else r = -EAFNOSUPPORT;
  if (r == 0 && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) r = -errno;
  if (r < 0) napi_create_int32(env, r, &result);
  else napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &result);
  return result;
}

static napi_value Pipe(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    napi_create_int32(env, -errno, &result);
    return result;
  }
  napi_value r, w;
  napi_create_array_with_length(env, 2, &result);
  napi_create_int32(env, fds[0], &r);
  napi_create_int32(env, fds[1], &w);
  napi_set_element(env, result, 0, r);
  napi_set_element(env, result, 1, w);
  return result;
}

static napi_value TuneAllocator(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#ifdef __GLIBC__
  int ok = mallopt(M_MMAP_THRESHOLD, 128 * 1024) && mallopt(M_ARENA_MAX, 2);
#else
  int ok = 0;
#endif
  napi_create_int32(env, ok, &result);
  return result;
}

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#ifdef __GLIBC__
  int r = malloc_trim(0);
#else
  int r = 0;
#endif
  napi_create_int32(env, r, &result);
  return result;
}

static napi_value Adjtimex(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  struct timex tx;
  memset(&tx, 0, sizeof tx); // modes 0: read, change nothing
  int r = adjtimex(&tx) < 0 ? -errno : tx.status;
  napi_create_int32(env, r, &result);
  return result;
}

static napi_value LimitUnsent(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  int32_t fd, bytes;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0 ||
      napi_get_value_int32(env, argv[1], &bytes) != napi_ok || bytes <= 0)
    return fail(env, "limitUnsent(fd, bytes)");
  int r = setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &bytes, sizeof bytes) < 0 ? -errno : 0;
  napi_create_int32(env, r, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "sendfile", NAPI_AUTO_LENGTH, Sendfile, NULL, &fn);
  napi_set_named_property(env, exports, "sendfile", fn);
  napi_create_function(env, "dup", NAPI_AUTO_LENGTH, Dup, NULL, &fn);
  napi_set_named_property(env, exports, "dup", fn);
  napi_create_function(env, "notify", NAPI_AUTO_LENGTH, Notify, NULL, &fn);
  napi_set_named_property(env, exports, "notify", fn);
  napi_create_function(env, "listening", NAPI_AUTO_LENGTH, Listening, NULL, &fn);
  napi_set_named_property(env, exports, "listening", fn);
  napi_create_function(env, "pipe", NAPI_AUTO_LENGTH, Pipe, NULL, &fn);
  napi_set_named_property(env, exports, "pipe", fn);
  napi_create_function(env, "tuneAllocator", NAPI_AUTO_LENGTH, TuneAllocator, NULL, &fn);
  napi_set_named_property(env, exports, "tuneAllocator", fn);
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  napi_create_function(env, "adjtimex", NAPI_AUTO_LENGTH, Adjtimex, NULL, &fn);
  napi_set_named_property(env, exports, "adjtimex", fn);
  napi_create_function(env, "limitUnsent", NAPI_AUTO_LENGTH, LimitUnsent, NULL, &fn);
  napi_set_named_property(env, exports, "limitUnsent", fn);
  return exports;
}
