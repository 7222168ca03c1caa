/* A FUSE file system whose one file's reads are never answered: a page of
 * that file, mapped, holds whoever touches it in the kernel until this
 * daemon answers or dies. What a hostile client of /dev/crypto passes as
 * its buffer (devcrypto/hostile.c). Mounted with allow_other, as root, so
 * that an unprivileged client may map it (as the client could itself with
 * the setuid fusermount3 and a daemon of its own).
 *
 *   stall_fs MOUNTPOINT      (the file is MOUNTPOINT/stalled, 4 MiB;
 *                             "ready" on stdout once mounted; ends on SIGTERM) */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

enum { kRoot = 1, kFile = 2 };
static const off_t kSize = 4 << 20;

static void attributes(fuse_ino_t ino, struct stat *st) {
  memset(st, 0, sizeof *st);
  st->st_ino = ino;
  if (ino == kRoot) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
  } else {
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = kSize;
  }
}

static void on_lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
  if (parent != kRoot || strcmp(name, "stalled") != 0) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  struct fuse_entry_param e;
  memset(&e, 0, sizeof e);
  e.ino = kFile;
  e.attr_timeout = e.entry_timeout = 3600;
  attributes(kFile, &e.attr);
  fuse_reply_entry(req, &e);
}

static void on_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  (void)fi;
  if (ino != kRoot && ino != kFile) {
    fuse_reply_err(req, ENOENT);
    return;
  }
  struct stat st;
  attributes(ino, &st);
  fuse_reply_attr(req, &st, 3600);
}

static void on_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  if (ino != kFile) {
    fuse_reply_err(req, EISDIR);
    return;
  }
  fuse_reply_open(req, fi);
}

/* Never answered: the reader waits until the daemon dies. */
static void on_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi) {
  (void)req, (void)ino, (void)size, (void)off, (void)fi;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: stall_fs MOUNTPOINT\n");
    return 2;
  }
  char *words[] = {argv[0], "-oallow_other,default_permissions", NULL};
  struct fuse_args args = FUSE_ARGS_INIT(2, words);
  struct fuse_lowlevel_ops ops;
  memset(&ops, 0, sizeof ops);
  ops.lookup = on_lookup;
  ops.getattr = on_getattr;
  ops.open = on_open;
  ops.read = on_read;
  struct fuse_session *se = fuse_session_new(&args, &ops, sizeof ops, NULL);
  if (se == NULL || fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, argv[1]) != 0) {
    fprintf(stderr, "stall_fs: cannot mount %s\n", argv[1]);
    return 1;
  }
  printf("ready\n");
  fflush(stdout);
  int rc = fuse_session_loop(se);
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  return rc < 0 ? 1 : 0;
}
