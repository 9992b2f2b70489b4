//===- Npy.h - Reading and writing numpy .npy files -------------*- C++ -*-===//
//
// The .npy format (numpy.lib.format): a magic string, a version, a Python
// dict literal describing dtype, order and shape, then the raw elements.
// Little-endian float32, float16, int8, uint8, int32 and bool arrays in C
// order are accepted (bfloat16 and 8- and 4-bit float tensors travel as
// float32 files, 4- and 2-bit integers as int8 or uint8); versions
// 1.0, 2.0 and 3.0 are read and version 1.0 is written.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_IO_NPY_H
#define HETC_RUNTIME_IO_NPY_H

#include "runtime/io/Tensor.h"

#include <string>

namespace hetc::io {

/// Parses a whole .npy image; `source` names it in errors. Returns false and
/// sets `error` when the file is malformed or holds an unsupported dtype or
/// layout.
bool parseNpy(const std::string &bytes, const std::string &source, Tensor &out,
              std::string &error);

/// Serialises `tensor` as a version 1.0 .npy image in C order (dtype after
/// the tensor's type; BF16 and the 8- and 4-bit floats as '<f4', the 4- and
/// 2-bit integers as '|i1' or '|u1').
/// Returns false when the shape does not match the element count.
bool serializeNpy(const Tensor &tensor, std::string &out, std::string &error);

/// Reads and parses the .npy file at `path`.
bool readNpy(const std::string &path, Tensor &out, std::string &error);

/// Writes `tensor` to `path` as a version 1.0 .npy file, atomically
/// (writeFileAtomically).
bool writeNpy(const std::string &path, const Tensor &tensor,
              std::string &error);

} // namespace hetc::io

#endif // HETC_RUNTIME_IO_NPY_H
