//===- SafeRead.h - Reading files a user names ------------------*- C++ -*-===//
//
// The files hetc reads (models, external data, artifacts, chip files,
// tensors) come from users and may be hostile: a FIFO that never ends, a
// device such as /dev/zero, a directory, or a file far larger than any
// the chip could use. Every read goes through these functions, which open
// regular files only, never block on open, and check the size before
// anything is allocated.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_IO_SAFEREAD_H
#define HETC_RUNTIME_IO_SAFEREAD_H

#include <cstdint>
#include <string>

namespace hetc::io {

/// The largest file hetc reads whole (artifacts, tensors, input values):
/// 1 GiB, between four and five times the 220 MiB SRAM of the largest
/// bundled chip, so that no tensor a chip can hold is refused, while a
/// file's contents widened to 32-bit host values stay within 4 GiB.
constexpr uint64_t kMaxReadBytes = uint64_t(1) << 30;

/// Opens `path` for reading when it is a regular file; devices, FIFOs,
/// sockets and directories are refused without blocking. Returns the
/// descriptor (the caller closes it) and the file's size in `size`, or -1
/// with `reason` set to why, without the path ("cannot be opened: No such
/// file or directory", "is a directory", ...), for the caller's message.
int openRegularFile(const std::string &path, uint64_t &size,
                    std::string &reason);

/// Reads the whole regular file `path` into `bytes` when it holds at most
/// `limit` bytes; otherwise returns false with `reason` set as above.
bool readRegularFile(const std::string &path, uint64_t limit,
                     std::string &bytes, std::string &reason);

} // namespace hetc::io

#endif // HETC_RUNTIME_IO_SAFEREAD_H
