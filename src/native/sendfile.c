// sendfile(2) for downloads, as a Node-API addon: Node has no zero-copy send. Built by
// build.mjs for each architecture and carried in the executable (src/files/sendfile.ts).
//
//   dup(fd) -> fd              a descriptor of the connection that only the download owns
//                              (close it with fs.close): Node may close its own at any time,
//                              and a number closed under a running send could be reused
//   sendfile(out, in, offset, count) -> Promise<number>
//                              bytes sent, 0 at the end of the file, or -errno; runs on
//                              libuv's thread pool (a page-cache miss waits there, not on
//                              the event loop); `out` is non-blocking, so it never waits
//                              for the client: a full socket buffer answers -EAGAIN
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/sendfile.h>
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

static napi_value Dup(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  int32_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) return fail(env, "dup(fd)");
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  napi_create_int32(env, copy < 0 ? -errno : copy, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "sendfile", NAPI_AUTO_LENGTH, Sendfile, NULL, &fn);
  napi_set_named_property(env, exports, "sendfile", fn);
  napi_create_function(env, "dup", NAPI_AUTO_LENGTH, Dup, NULL, &fn);
  napi_set_named_property(env, exports, "dup", fn);
  return exports;
}
