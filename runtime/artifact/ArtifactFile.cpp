//===- ArtifactFile.cpp - Reading and writing .hetx files -------------===//

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/SafeRead.h"
#include "runtime/io/SafeWrite.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

namespace hetc::artifact {

namespace {
constexpr char kMagic[4] = {'H', 'E', 'T', 'X'};

void putLE(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t getLE(const std::string &in, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= uint64_t(static_cast<unsigned char>(in[offset + i])) << (8 * i);
  return value;
}

/// The payload's top-level fields but the instructions, as the bytes of an
/// Artifact without them: each other field's tag and value copied, each
/// instruction skipped by its length. False if the fields do not scan.
bool withoutInstructions(const char *payload, int size, std::string &rest) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream coded(
      reinterpret_cast<const uint8_t *>(payload), size);
  for (;;) {
    int start = coded.CurrentPosition();
    uint32_t tag = coded.ReadTag();
    if (tag == 0)
      return coded.CurrentPosition() == size;
    if (WireFormatLite::GetTagFieldNumber(tag) ==
            hetx::Artifact::kInstructionsFieldNumber &&
        WireFormatLite::GetTagWireType(tag) ==
            WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length;
      if (!coded.ReadVarint32(&length) || !coded.Skip(int(length)))
        return false;
      continue;
    }
    if (!WireFormatLite::SkipField(&coded, tag))
      return false;
    rest.append(payload + start, size_t(coded.CurrentPosition() - start));
  }
}

std::string hex(uint64_t value) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setw(16) << std::setfill('0') << value;
  return os.str();
}
} // namespace

std::string serialize(const hetx::Artifact &artifact) {
  // The payload is written after room for the header, which is filled in
  // once its size and checksum are known: one buffer, never copied.
  std::string out(kHeaderBytes, '\0');
  out.reserve(kHeaderBytes + artifact.ByteSizeLong());
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    artifact.SerializeToCodedStream(&coded);
  }
  std::string header(kMagic, sizeof(kMagic));
  putLE(header, kFormatVersion, 4);
  uint64_t size = out.size() - kHeaderBytes;
  putLE(header, size, 8);
  putLE(header, chip::fnv1a64(out.data() + kHeaderBytes, size), 8);
  out.replace(0, kHeaderBytes, header);
  return out;
}

bool parse(const std::string &bytes, const std::string &source,
           hetx::Artifact &out, std::string &error, Sections sections) {
  if (bytes.size() < kHeaderBytes ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    error = source + ": not a .hetx artifact (missing 'HETX' header)";
    return false;
  }
  uint32_t version = static_cast<uint32_t>(getLE(bytes, 4, 4));
  if (version != kFormatVersion) {
    error = source + ": artifact format version " + std::to_string(version) +
            " is not supported (this runtime reads version " +
            std::to_string(kFormatVersion) + "); recompile the model";
    return false;
  }
  uint64_t size = getLE(bytes, 8, 8);
  if (size != bytes.size() - kHeaderBytes) {
    error = source + ": artifact is truncated or padded (header says " +
            std::to_string(size) + " payload bytes, file has " +
            std::to_string(bytes.size() - kHeaderBytes) + ")";
    return false;
  }
  if (size > uint64_t(std::numeric_limits<int>::max())) {
    error = source + ": artifact payload of " + std::to_string(size) +
            " bytes is larger than a protobuf message may be (2 GiB)";
    return false;
  }
  uint64_t expected = getLE(bytes, 16, 8);
  uint64_t actual = chip::fnv1a64(bytes.data() + kHeaderBytes, size);
  if (expected != actual) {
    error = source + ": artifact is corrupt (checksum " + hex(actual) +
            ", header says " + hex(expected) + ")";
    return false;
  }
  const char *payload = bytes.data() + kHeaderBytes;
  bool parsed;
  if (sections == Sections::All) {
    parsed = out.ParseFromArray(payload, int(size));
  } else {
    std::string rest;
    parsed = withoutInstructions(payload, int(size), rest) &&
             out.ParseFromString(rest);
  }
  if (!parsed) {
    error = source + ": artifact payload is not a valid hetc.hetx.Artifact";
    return false;
  }
  return true;
}

bool writeFile(const hetx::Artifact &artifact, const std::string &path,
               std::string &error) {
  return io::writeFileAtomically(path, serialize(artifact), error);
}

bool readFile(const std::string &path, hetx::Artifact &out,
              std::string &error, Sections sections) {
  std::string bytes;
  if (!io::readRegularFile(path, io::kMaxReadBytes, bytes, error)) {
    error = path + ": artifact " + error;
    return false;
  }
  return parse(bytes, path, out, error, sections);
}

hetx::ChipIdentity identityOf(const chip::ChipSpec &chip) {
  hetx::ChipIdentity id;
  id.set_name(chip.name());
  id.set_revision(chip.proto().revision());
  id.set_fingerprint(chip.fingerprint());
  return id;
}

bool checkChipMatch(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
                    std::string &error) {
  const hetx::ChipIdentity &want = artifact.chip();
  if (want.name() != chip.name() ||
      want.revision() != chip.proto().revision() ||
      want.fingerprint() != chip.fingerprint()) {
    error = "artifact was compiled for chip '" + want.name() + "' revision " +
            std::to_string(want.revision()) + " (fingerprint " +
            hex(want.fingerprint()) + "), but the chip is '" + chip.name() +
            "' revision " + std::to_string(chip.proto().revision()) +
            " (fingerprint " + hex(chip.fingerprint()) + ")";
    return false;
  }
  return true;
}

} // namespace hetc::artifact
