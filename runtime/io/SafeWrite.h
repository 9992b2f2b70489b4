//===- SafeWrite.h - Writes that never lose data ----------------*- C++ -*-===//
//
// Every file hetc writes (artifacts, printed IR, outputs, traces) goes
// through writeFileAtomically: the bytes go to a temporary file in the
// target's folder, are flushed to disk, and the temporary is renamed over
// the target. A reader sees the old file or the new one, never a part, and
// a write that fails (a full disk, a file-size limit) leaves the old file
// as it was. refuseInputAsOutput keeps a command from writing over one of
// the files it reads.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_IO_SAFEWRITE_H
#define HETC_RUNTIME_IO_SAFEWRITE_H

#include <string>
#include <string_view>
#include <vector>

namespace hetc::io {

/// Writes `bytes` to `path` atomically. When `path` is a symbolic link, the
/// file it points to is replaced (the link stays). A new file gets the
/// permissions the umask allows; a replaced one keeps its own. On failure
/// returns false, leaves any existing file untouched, removes the temporary
/// and sets `error` to "<path>: cannot write: <reason>".
bool writeFileAtomically(const std::string &path, std::string_view bytes,
                         std::string &error);

/// True when `a` and `b` name the same existing file, also through a
/// symbolic link or a hard link.
bool sameFile(const std::string &a, const std::string &b);

/// Returns false with `error` set when `output` is the same file as one of
/// `inputs`; `what` names the output in the message ("-o", "output 'y'").
bool refuseInputAsOutput(const std::string &output,
                         const std::vector<std::string> &inputs,
                         const std::string &what, std::string &error);

/// Makes writes past a file-size limit (RLIMIT_FSIZE) fail with an error
/// instead of killing the process with SIGXFSZ, so that the failure is
/// reported and the temporary file removed. Tools call it once at start.
void reportFileSizeLimitAsError();

} // namespace hetc::io

#endif // HETC_RUNTIME_IO_SAFEWRITE_H
