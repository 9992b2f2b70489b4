//===- SafeWrite.cpp - Writes that never lose data --------------------===//

#include "runtime/io/SafeWrite.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hetc::io {

namespace {

/// The file a write to `path` replaces: the target of a symbolic link, or
/// `path` itself.
std::string resolveTarget(const std::string &path) {
  struct stat link;
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode))
    return path;
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr)
    return path; // A dangling link is replaced by the new file.
  return resolved;
}

std::string folderOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseNameOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Creates a fresh temporary file beside `target`; returns its descriptor
/// (or -1 with errno set) and its name in `name`.
int createTemporary(const std::string &target, std::string &name) {
  static std::atomic<unsigned> counter{0};
  std::string stem =
      folderOf(target) + "/." + baseNameOf(target) + ".tmp-" +
      std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = stem + std::to_string(counter++);
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                    0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  return -1;
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

} // namespace

bool writeFileAtomically(const std::string &path, std::string_view bytes,
                         std::string &error) {
  std::string target = resolveTarget(path);
  struct stat existing;
  bool replaces = ::stat(target.c_str(), &existing) == 0;
  if (replaces && S_ISDIR(existing.st_mode)) {
    error = path + ": cannot write: it is a directory";
    return false;
  }
  auto fail = [&](const std::string &temporary) {
    int saved = errno;
    if (!temporary.empty())
      ::unlink(temporary.c_str());
    error = path + ": cannot write: " + std::strerror(saved);
    if (replaces)
      error += " (the existing file is unchanged)";
    return false;
  };

  std::string temporary;
  int fd = createTemporary(target, temporary);
  if (fd < 0)
    return fail("");
  // A replaced file keeps its permissions; a new one has the umask's.
  bool ok = (!replaces || ::fchmod(fd, existing.st_mode & 07777) == 0) &&
            writeAll(fd, bytes) && ::fsync(fd) == 0;
  if (!ok) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return fail(temporary);
  }
  if (::close(fd) != 0 || ::rename(temporary.c_str(), target.c_str()) != 0)
    return fail(temporary);
  // Make the rename itself durable; a failure here loses nothing.
  int folder = ::open(folderOf(target).c_str(), O_RDONLY | O_DIRECTORY);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
  return true;
}

bool sameFile(const std::string &a, const std::string &b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 &&
         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool refuseInputAsOutput(const std::string &output,
                         const std::vector<std::string> &inputs,
                         const std::string &what, std::string &error) {
  for (const std::string &input : inputs) {
    if (!sameFile(output, input))
      continue;
    error = what + " '" + output + "' is the input file '" + input +
            "'; writing it would destroy the input (choose another path)";
    return false;
  }
  return true;
}

void reportFileSizeLimitAsError() { std::signal(SIGXFSZ, SIG_IGN); }

} // namespace hetc::io
