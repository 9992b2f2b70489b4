//===- FuzzArtifact.cpp - .hetx files through `hetc run` ---------------===//
//
// The input is a .hetx file run as `hetc run FILE --chip test-chip.chip`
// and `--chip tsp-v1.chip` would: loaded, checked, inputs generated,
// simulated; then as
// `--backend cpu` runs it: its kernel plan checked and run. Inputs whose first
// byte is odd are taken as a payload (the rest of the input) behind a valid
// header, so that mutations reach past the checksum into the schema, the
// binding checks and the chip model.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzTarget.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/run/RunCommand.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

using namespace hetc;

namespace {
/// The file each input is written to, one per process, removed when the
/// process exits (not when it dies on a finding).
const std::string &inputPath() {
  static const std::string path =
      "/tmp/hetc-fuzz-artifact-" + std::to_string(::getpid()) + ".hetx";
  static const bool removedAtExit = [] {
    return std::atexit([] { std::remove(inputPath().c_str()); }) == 0;
  }();
  (void)removedAtExit;
  return path;
}

void putLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  if (!bytes.empty() && (bytes[0] & 1)) {
    std::string payload = bytes.substr(1);
    bytes = "HETX";
    putLE(bytes, artifact::kFormatVersion, 4);
    putLE(bytes, payload.size(), 8);
    putLE(bytes, chip::fnv1a64(payload), 8);
    bytes += payload;
  }
  const std::string &path = inputPath();
  {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), bytes.size());
  }
  // On the chip model, then on the CPU backend (its kernel plan), for
  // test-chip and for tsp-v1, whose addresses are interleaved over its
  // slices (an artifact for the other chip is refused as it loads).
  for (const char *chipFile : {"test-chip.chip", "tsp-v1.chip"})
    for (const char *backend : {"chip", "cpu"}) {
      run::RunOptions options;
      options.artifactPath = path;
      options.chipPath = fuzz::chipPath(chipFile);
      options.backend = backend;
      std::ostringstream out, err;
      run::runCommand(options, out, err);
    }
  return 0;
}
