// The service manager's side of sd_notify(3) and the file-descriptor store, for tests that
// run a real agent without systemd as PID 1 (test/ops-systemd.test.ts).
//
//   fake-systemd SOCKET COMMAND [ARG...]
//
// Binds a unix datagram socket at SOCKET (a path, or '@' + an abstract name), starts
// COMMAND with NOTIFY_SOCKET=SOCKET and, when the store holds a descriptor, that one as fd 3
// with LISTEN_FDS=1, LISTEN_PID and LISTEN_FDNAMES, as systemd does. Every datagram is
// printed as one JSON line {"pid":P,"text":"...","fd":"address port"}; FDSTORE=1 keeps
// the descriptor that came along (one slot), FDSTOREREMOVE=1 closes it. Commands on
// standard input, one a line: "signal N" sends signal N to the service; "restart" stops it
// with SIGTERM, waits, and starts it again with the store kept (systemctl restart);
// "drop" empties the store (a unit without FileDescriptorStoreMax=: the benchmark's plain
// restart); "quit" stops it and exits. {"exit":CODE} or {"signal":N} is printed when the service ends.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

static int stored = -1;
static char stored_name[256] = "";
static pid_t child = -1;
static char **command;
static const char *socket_path;

static void print_json_string(const char *s, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c == '\n') printf("\\n");
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

static void sockname(int fd, char *out, size_t size) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  char host[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
    snprintf(out, size, "error %d", errno);
    return;
  }
  if (ss.ss_family == AF_INET) {
    inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
    port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
    port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
  }
  snprintf(out, size, "%s %u", host, port);
}

static void start(void) {
  child = fork();
  if (child < 0) { perror("fork"); exit(1); }
  if (child > 0) return;
  setenv("NOTIFY_SOCKET", socket_path, 1);
  if (stored >= 0) {
    char pid[32];
    if (dup2(stored, 3) < 0) _exit(126);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    setenv("LISTEN_FDS", "1", 1);
    setenv("LISTEN_PID", pid, 1);
    setenv("LISTEN_FDNAMES", stored_name, 1);
  }
  execvp(command[0], command);
  _exit(127);
}

static void reap(int wait_flags) {
  int status;
  if (child < 0 || waitpid(child, &status, wait_flags) != child) return;
  if (WIFEXITED(status)) printf("{\"exit\":%d}\n", WEXITSTATUS(status));
  else printf("{\"signal\":%d}\n", WTERMSIG(status));
  fflush(stdout);
  child = -1;
}

static void receive(int sock) {
  char text[4097];
  union { struct cmsghdr align; char buf[CMSG_SPACE(sizeof(int) * 8) + CMSG_SPACE(sizeof(struct ucred))]; } control;
  struct iovec iov = { .iov_base = text, .iov_len = sizeof text - 1 };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf };
  ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
  if (n < 0) return;
  text[n] = 0;
  int fd = -1;
  pid_t pid = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) memcpy(&fd, CMSG_DATA(c), sizeof fd);
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) pid = ((struct ucred *)CMSG_DATA(c))->pid;
  }
  printf("{\"pid\":%d,\"text\":", (int)pid);
  print_json_string(text, (size_t)n);
  if (fd >= 0) {
    char where[128];
    sockname(fd, where, sizeof where);
    printf(",\"fd\":\"%s\"", where);
  }
  printf("}\n");
  fflush(stdout);
  const char *name = strstr(text, "FDNAME=");
  if (strstr(text, "FDSTORE=1") && fd >= 0) {
    if (stored >= 0) close(stored);
    stored = fd;
    snprintf(stored_name, sizeof stored_name, "%.*s", name ? (int)strcspn(name + 7, "\n") : 7, name ? name + 7 : "unknown");
  } else if (fd >= 0) {
    close(fd);
  }
  if (strstr(text, "FDSTOREREMOVE=1") && stored >= 0) {
    close(stored);
    stored = -1;
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fake-systemd SOCKET COMMAND [ARG...]\n");
    return 64;
  }
  socket_path = argv[1];
  command = argv + 2;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  size_t len = strlen(socket_path);
  if (len >= sizeof sa.sun_path) return 64;
  memcpy(sa.sun_path, socket_path, len);
  if (socket_path[0] == '@') sa.sun_path[0] = 0;
  int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (sock < 0 || setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
      bind(sock, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0) {
    perror("notify socket");
    return 1;
  }
  start();
  char line[256];
  size_t have = 0;
  for (;;) {
    struct pollfd fds[2] = { { .fd = sock, .events = POLLIN }, { .fd = 0, .events = POLLIN } };
    poll(fds, 2, 20);
    if (fds[0].revents & POLLIN) receive(sock);
    reap(WNOHANG);
    if (!(fds[1].revents & (POLLIN | POLLHUP))) continue;
    ssize_t n = read(0, line + have, sizeof line - 1 - have);
    if (n <= 0) strcpy(line, "quit\n"), have = 5;
    else have += (size_t)n;
    line[have] = 0;
    char *nl;
    while ((nl = strchr(line, '\n'))) {
      *nl = 0;
      int sig;
      if (sscanf(line, "signal %d", &sig) == 1 && child > 0) {
        kill(child, sig);
      } else if (strcmp(line, "drop") == 0 && stored >= 0) {
        close(stored);
        stored = -1;
      } else if (strcmp(line, "restart") == 0 || strcmp(line, "quit") == 0) {
        if (child > 0) {
          kill(child, SIGTERM);
          // Messages sent while stopping (STOPPING=1) are printed before the exit.
          while (child > 0) {
            struct pollfd p = { .fd = sock, .events = POLLIN };
            if (poll(&p, 1, 20) > 0) receive(sock);
            reap(WNOHANG);
          }
        }
        while (1) {
          struct pollfd p = { .fd = sock, .events = POLLIN };
          if (poll(&p, 1, 0) <= 0) break;
          receive(sock);
        }
        if (strcmp(line, "quit") == 0) {
          if (socket_path[0] == '/') unlink(socket_path);
          return 0;
        }
        start();
      }
      have -= (size_t)(nl + 1 - line);
      memmove(line, nl + 1, have + 1);
    }
  }
}
