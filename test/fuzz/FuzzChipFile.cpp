//===- FuzzChipFile.cpp - Chip files: parse, validate, set up the model ===//
//
// A chip file that validates must set up the chip model (SRAM, stream
// network, dispatcher) within bounded memory and run an empty program.
//
//===----------------------------------------------------------------------===//

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/chip/ChipSpec.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <string>

using namespace hetc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  chip::ChipSpec spec;
  std::string error;
  if (!chip::ChipSpec::parse(text, "fuzz.chip", spec, error))
    return 0;
  hetx::Artifact artifact;
  *artifact.mutable_chip() = artifact::identityOf(spec);
  sim::SimResult result;
  sim::simulate(artifact, spec, {}, sim::SimOptions(), result, error);
  return 0;
}
