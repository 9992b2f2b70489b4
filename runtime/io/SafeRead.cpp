//===- SafeRead.cpp - Reading files a user names ----------------------===//

#include "runtime/io/SafeRead.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetc::io {

int openRegularFile(const std::string &path, uint64_t &size,
                    std::string &reason) {
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    reason = std::string("cannot be opened: ") + std::strerror(errno);
    return -1;
  }
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    reason = std::string("cannot be opened: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(info.st_mode)) {
    reason = S_ISDIR(info.st_mode)
                 ? "is a directory"
                 : "is not a regular file (a device, FIFO or socket)";
    ::close(fd);
    return -1;
  }
  // Reads of a regular file block as usual again.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  size = static_cast<uint64_t>(info.st_size);
  return fd;
}

bool readRegularFile(const std::string &path, uint64_t limit,
                     std::string &bytes, std::string &reason) {
  uint64_t size = 0;
  int fd = openRegularFile(path, size, reason);
  if (fd < 0)
    return false;
  if (size > limit) {
    reason = "holds " + std::to_string(size) + " bytes, more than the " +
             std::to_string(limit) + " hetc reads";
    ::close(fd);
    return false;
  }
  bytes.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t got = ::read(fd, bytes.data() + done, size - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      reason = std::string("cannot be read: ") +
               (got < 0 ? std::strerror(errno) : "it shrank while being read");
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  return true;
}

} // namespace hetc::io
