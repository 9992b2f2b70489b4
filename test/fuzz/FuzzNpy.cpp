//===- FuzzNpy.cpp - .npy tensor files ---------------------------------===//
//
// A .npy file that parses must serialise again and parse to the same
// tensor.
//
//===----------------------------------------------------------------------===//

#include "runtime/io/Npy.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace hetc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  io::Tensor tensor, again;
  std::string error, written;
  if (!io::parseNpy(bytes, "fuzz.npy", tensor, error))
    return 0;
  if (!io::serializeNpy(tensor, written, error))
    return 0;
  if (!io::parseNpy(written, "again.npy", again, error) ||
      again.shape != tensor.shape || again.type != tensor.type)
    std::abort(); // What hetc writes it must read back.
  return 0;
}
