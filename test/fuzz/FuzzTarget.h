//===- FuzzTarget.h - What the fuzz targets share ---------------*- C++ -*-===//
//
// The chip the targets compile for and run on, read once from the source
// tree's chips/ folder (or $HETC_CHIPS_DIR).
//
//===----------------------------------------------------------------------===//
#ifndef HETC_TEST_FUZZ_FUZZTARGET_H
#define HETC_TEST_FUZZ_FUZZTARGET_H

#include "runtime/chip/ChipSpec.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace hetc::fuzz {

/// The path of bundled chip file `name` ("test-chip.chip").
inline std::string chipPath(const std::string &name) {
  const char *dir = std::getenv("HETC_CHIPS_DIR");
  return std::string(dir && *dir ? dir : HETC_CHIPS_DIR) + "/" + name;
}

/// The small test chip, loaded on first use; a target cannot run without it.
inline const chip::ChipSpec &testChip() {
  static const chip::ChipSpec spec = [] {
    chip::ChipSpec loaded;
    std::string error;
    if (!chip::ChipSpec::load(chipPath("test-chip.chip"), loaded, error)) {
      std::fprintf(stderr, "fuzz target set-up: %s\n", error.c_str());
      std::abort();
    }
    return loaded;
  }();
  return spec;
}

} // namespace hetc::fuzz

#endif // HETC_TEST_FUZZ_FUZZTARGET_H
