/* early EVENT: the first thing a probe hook runs. Copies $PROBE_TX as it is at this instant to
 * $PROBE_DIR/early/<ns>-EVENT.jsonl (no stdin read, no fork), so the copy shows what a fast hook
 * (compact-guardian's save) can see when the CLI starts it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
int main(int argc, char **argv) {
  struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
  const char *tx = getenv("PROBE_TX"), *dir = getenv("PROBE_DIR");
  if (!tx || !dir || argc < 2) return 0;
  char path[4096]; snprintf(path, sizeof path, "%s/early", dir); mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/early/%lld.%09ld-%d-%s.jsonl", dir, (long long)ts.tv_sec, ts.tv_nsec, (int)getpid(), argv[1]);
  int in = open(tx, O_RDONLY); if (in < 0) return 0;
  int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644); if (out < 0) return 0;
  char buf[1 << 16]; ssize_t n;
  while ((n = read(in, buf, sizeof buf)) > 0) if (write(out, buf, n) != n) break;
  close(in); close(out); return 0;
}
