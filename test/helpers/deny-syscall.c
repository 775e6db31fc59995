// Runs a command with one system call refused: a seccomp filter makes it fail with the
// given errno, as a systemd SystemCallFilter= with SystemCallErrorNumber= or a container
// runtime's profile does. Used by the tests to reach the agent's fallbacks for real.
//   deny-syscall NAME ERRNO COMMAND [ARG...]      (NAME: sendfile)
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "unsupported architecture"
#endif

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s NAME ERRNO COMMAND [ARG...]\n", argv[0]);
    return 2;
  }
  long nr;
  if (strcmp(argv[1], "sendfile") == 0) nr = __NR_sendfile;
  else {
    fprintf(stderr, "%s: unknown system call %s\n", argv[0], argv[1]);
    return 2;
  }
  int err = atoi(argv[2]);
  if (err <= 0 || err > 4095) {
    fprintf(stderr, "%s: bad errno %s\n", argv[0], argv[2]);
    return 2;
  }
  struct sock_filter filter[] = {
    // Another architecture's calling convention numbers calls differently: refuse it all.
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { .len = sizeof filter / sizeof filter[0], .filter = filter };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    perror("seccomp");
    return 1;
  }
  execvp(argv[3], argv + 3);
  perror(argv[3]);
  return 127;
}
