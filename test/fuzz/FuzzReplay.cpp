//===- FuzzReplay.cpp - Runs a fuzz target over files, without libFuzzer ===//
//
// The normal build links every fuzz target with this driver instead of
// libFuzzer: `target FILE|DIR...` feeds each file (directories: each file
// below them) to LLVMFuzzerTestOneInput once. ctest runs each target over
// its seed corpus and the inputs of past findings this way, so that CI
// replays them on every change with any compiler; scripts/fuzz.sh builds
// the same targets with libFuzzer and the sanitizers to search for more.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
    __attribute__((weak));

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path path(argv[i]);
    if (!fs::is_directory(path)) {
      files.push_back(path);
      continue;
    }
    for (const fs::directory_entry &entry :
         fs::recursive_directory_iterator(path))
      if (entry.is_regular_file())
        files.push_back(entry.path());
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE|DIR...: no input files\n", argv[0]);
    return 2;
  }
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes(std::istreambuf_iterator<char>(in), {});
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("%s: %zu inputs replayed\n", argv[0], files.size());
  return 0;
}
