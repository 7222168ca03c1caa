/* CRIOGET for /dev/crypto served by `cryptoaccel devcrypto`.
 *
 * cryptodev-linux answers CRIOGET (OpenBSD's "give me a crypto descriptor")
 * with a new descriptor of the same open file, as dup() makes: sessions made
 * through either are the same sessions. A CUSE server runs in another
 * process and cannot put a descriptor into its caller's table, so
 * `cryptoaccel devcrypto` answers CRIOGET with EOPNOTSUPP, and this library,
 * preloaded into the caller (LD_PRELOAD=libcryptoaccel-crioget.so), makes
 * the descriptor there instead: on that answer, for a CUSE character
 * device, it returns dup()'s descriptor, as the module does (no
 * close-on-exec, the lowest free number). Every other ioctl, and CRIOGET on
 * the real module or any other device, goes to the kernel unchanged.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#define CRYPTOACCEL_CRIOGET _IOWR('c', 101, uint32_t)

typedef int ioctl_function(int, unsigned long, ...);

/* Is `rdev` the number of a device that CUSE serves? Each CUSE device lists
 * its number in /sys/class/cuse/NAME/dev. */
static int is_cuse_device(dev_t rdev) {
  DIR* dir = opendir("/sys/class/cuse");
  if (dir == NULL) return 0;
  int found = 0;
  struct dirent* entry;
  while (!found && (entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char path[320];
    snprintf(path, sizeof path, "/sys/class/cuse/%s/dev", entry->d_name);
    FILE* file = fopen(path, "re");
    if (file == NULL) continue;
    unsigned int major_number, minor_number;
    if (fscanf(file, "%u:%u", &major_number, &minor_number) == 2)
      found = makedev(major_number, minor_number) == rdev;
    fclose(file);
  }
  closedir(dir);
  return found;
}

int ioctl(int fd, unsigned long request, ...) {
  static ioctl_function* next;
  if (next == NULL) next = (ioctl_function*)dlsym(RTLD_NEXT, "ioctl");
  va_list args;
  va_start(args, request);
  void* arg = va_arg(args, void*);
  va_end(args);
  if (next == NULL) {
    errno = ENOSYS;
    return -1;
  }
  const int result = next(fd, request, arg);
  if (result == 0 || request != CRYPTOACCEL_CRIOGET || errno != EOPNOTSUPP) return result;

  const int saved = errno;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || !is_cuse_device(st.st_rdev)) {
    errno = saved;
    return result;
  }
  const int copy = fcntl(fd, F_DUPFD, 0);
  if (copy < 0) return -1; /* EMFILE, as the module's get_unused_fd fails */
  /* Written as the kernel would, so that a bad pointer is EFAULT, not a crash. */
  uint32_t value = (uint32_t)copy;
  struct iovec local = {&value, sizeof value}, remote = {arg, sizeof value};
  if (process_vm_writev(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)sizeof value) {
    close(copy);
    errno = EFAULT;
    return -1;
  }
  return 0;
}
