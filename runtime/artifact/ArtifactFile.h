//===- ArtifactFile.h - Reading and writing .hetx files --------*- C++ -*-===//
//
// A .hetx file is a 24-byte header followed by a serialised
// hetc.hetx.Artifact:
//   bytes 0-3   magic "HETX"
//   bytes 4-7   format version (little-endian u32)
//   bytes 8-15  payload size in bytes (little-endian u64)
//   bytes 16-23 FNV-1a 64 checksum of the payload (little-endian u64)
// The version and checksum are checked before the payload is parsed, so a
// file from another version or a damaged file is rejected with a reason.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_ARTIFACT_ARTIFACTFILE_H
#define HETC_RUNTIME_ARTIFACT_ARTIFACTFILE_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/schema/hetx.pb.h"

#include <string>

namespace hetc::artifact {

/// The format version this build writes and accepts. Version 3 added
/// native width (Instruction.part, TensorBinding.packed), which a version-2
/// runtime would ignore and so misplace packed data; version 4 the kernel
/// plan's transposed matmul weights (PlanKernel.transposed_weight), which a
/// version-3 CPU backend would multiply untransposed; version 5 trains
/// (Instruction.repeat, repeat_cycles, repeat_step), which a version-4
/// runtime would issue once; version 6 reads and weight loads of several
/// parts of a row (Instruction.parts) and interleaved weights in the kernel
/// plan (PlanKernel.interleave, interleave_cols), which a version-5 runtime
/// would read and install one part of.
constexpr uint32_t kFormatVersion = 6;
constexpr size_t kHeaderBytes = 24;

/// Serialises `artifact` with its header, deterministically: the same
/// artifact always gives the same bytes.
std::string serialize(const hetx::Artifact &artifact);

/// What of an artifact to read: all of it, or all but the chip program's
/// instructions (a run on the kernel plan reads none of them, and on a
/// large model they are most of the payload's messages). The checksum is
/// checked over the whole payload either way.
enum class Sections { All, WithoutInstructions };

/// Parses a whole .hetx image; `source` names it in errors.
bool parse(const std::string &bytes, const std::string &source,
           hetx::Artifact &out, std::string &error,
           Sections sections = Sections::All);

/// Writes the artifact atomically (io::writeFileAtomically): a failed write
/// leaves any earlier file at `path` as it was.
bool writeFile(const hetx::Artifact &artifact, const std::string &path,
               std::string &error);
bool readFile(const std::string &path, hetx::Artifact &out, std::string &error,
              Sections sections = Sections::All);

/// The identity a .hetx records for `chip`.
hetx::ChipIdentity identityOf(const chip::ChipSpec &chip);

/// Checks that `artifact` was compiled for `chip` (name, revision and
/// fingerprint all match).
bool checkChipMatch(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                    std::string &error);

} // namespace hetc::artifact

#endif // HETC_RUNTIME_ARTIFACT_ARTIFACTFILE_H
