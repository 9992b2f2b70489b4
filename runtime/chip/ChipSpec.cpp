//===- ChipSpec.cpp - Chip file parsing and validation ----------------===//

#include "runtime/chip/ChipSpec.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <fstream>
#include <sstream>

namespace hetc::chip {

uint64_t fnv1a64(const std::string &bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

namespace {
/// Collects protobuf text-format errors as "source:line:col: message".
class ErrorCollector : public google::protobuf::io::ErrorCollector {
public:
  explicit ErrorCollector(const std::string &source) : source(source) {}
  void AddError(int line, int column, const std::string &message) override {
    if (!text.empty())
      text += "\n";
    text += source + ":" + std::to_string(line + 1) + ":" +
            std::to_string(column + 1) + ": " + message;
  }
  std::string text;

private:
  const std::string &source;
};
} // namespace

bool ChipSpec::parse(const std::string &text, const std::string &source,
                     ChipSpec &out, std::string &error) {
  ErrorCollector collector(source);
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  out = ChipSpec();
  if (!parser.ParseFromString(text, &out.chip)) {
    error = collector.text.empty() ? source + ": not a valid chip description"
                                   : collector.text;
    return false;
  }
  return out.validate(source, error);
}

bool ChipSpec::load(const std::string &path, ChipSpec &out,
                    std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open chip file";
    return false;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse(buffer.str(), path, out, error);
}

bool ChipSpec::validate(const std::string &source, std::string &error) {
  std::vector<std::string> problems;
  auto require = [&](bool ok, const std::string &field,
                     const std::string &what) {
    if (!ok)
      problems.push_back("field '" + field + "' " + what);
  };

  require(!chip.name().empty(), "name", "must be set");
  require(chip.clock_mhz() > 0, "clock_mhz", "must be > 0");
  require(chip.lanes() > 0 && chip.lanes() <= 4096, "lanes",
          "must be in [1, 4096]");
  const Streams &streams = chip.streams();
  require(streams.per_direction() >= kElementBytes &&
              streams.per_direction() % kElementBytes == 0,
          "streams.per_direction",
          "must be a positive multiple of " + std::to_string(kElementBytes) +
              " (one fp32 vector takes that many byte-wide streams)");
  require(streams.hop_cycles() >= 1, "streams.hop_cycles", "must be >= 1");
  const Memory &memory = chip.memory();
  require(memory.slices() > 0, "memory.slices", "must be > 0");
  require(memory.banks_per_slice() > 0, "memory.banks_per_slice",
          "must be > 0");
  require(memory.accesses_per_bank_per_cycle() > 0,
          "memory.accesses_per_bank_per_cycle", "must be > 0");
  uint64_t vectorBytes = uint64_t(chip.lanes()) * kElementBytes;
  require(chip.lanes() > 0 && memory.slice_bytes() >= vectorBytes &&
              memory.slice_bytes() % vectorBytes == 0,
          "memory.slice_bytes",
          "must be a positive multiple of one fp32 vector (lanes * " +
              std::to_string(kElementBytes) + " bytes)");
  const MatrixUnit &matrix = chip.matrix();
  require(matrix.planes() > 0, "matrix.planes", "must be > 0");
  require(matrix.rows() == chip.lanes() && matrix.cols() == chip.lanes(),
          "matrix.rows/cols",
          "must both equal 'lanes' (a plane takes one vector per row)");
  require(chip.vector().alus() > 0, "vector.alus", "must be > 0");
  const Latencies &lat = chip.latency();
  require(lat.mem_read() >= 1, "latency.mem_read", "must be >= 1");
  require(lat.mem_write() >= 1, "latency.mem_write", "must be >= 1");
  require(lat.vector_op() >= 1, "latency.vector_op", "must be >= 1");
  require(lat.vector_reduce() >= 1, "latency.vector_reduce", "must be >= 1");
  require(lat.matrix_load() >= 1, "latency.matrix_load", "must be >= 1");
  require(lat.matrix_mul() >= 1, "latency.matrix_mul", "must be >= 1");
  require(lat.switch_op() >= 1, "latency.switch_op", "must be >= 1");
  require(chip.dma().engines() >= 1 && chip.dma().engines() <= 64,
          "dma.engines", "must be in [1, 64]");
  require(chip.dma().bytes_per_cycle() >= 1, "dma.bytes_per_cycle",
          "must be >= 1");
  require(chip.dma().latency() >= 1, "dma.latency", "must be >= 1");
  const ChipToChip &c2c = chip.c2c();
  require(c2c.links() <= 64, "c2c.links", "must be in [0, 64]");
  if (c2c.links() > 0) {
    require(c2c.bytes_per_cycle() >= 1, "c2c.bytes_per_cycle", "must be >= 1");
    require(c2c.latency() >= 1, "c2c.latency", "must be >= 1");
    require(c2c.receive_buffer() >= 1, "c2c.receive_buffer", "must be >= 1");
  }
  require(chip.dispatch().per_cycle() >= 1, "dispatch.per_cycle",
          "must be >= 1");
  require(chip.dispatch().queue_depth() >= 1 &&
              chip.dispatch().queue_depth() <= 65536,
          "dispatch.queue_depth", "must be in [1, 65536]");

  // Expand the floorplan into positions.
  uint32_t position = 0, vectorUnits = 0;
  for (int i = 0; i < chip.floorplan_size(); ++i) {
    const FloorplanEntry &entry = chip.floorplan(i);
    std::string field = "floorplan[" + std::to_string(i) + "]";
    if (entry.count() == 0 || entry.count() > 100000) {
      problems.push_back("field '" + field + ".count' must be in [1, 100000]");
      continue;
    }
    for (uint32_t k = 0; k < entry.count(); ++k, ++position) {
      switch (entry.unit()) {
      case MEMORY:
        slicePos.push_back(position);
        break;
      case MATRIX:
        planePos.push_back(position);
        break;
      case VECTOR:
        vectorPos = position;
        ++vectorUnits;
        break;
      case SWITCH:
        switchPos.push_back(position);
        break;
      default:
        problems.push_back("field '" + field + ".unit' must be MEMORY, " +
                           "VECTOR, MATRIX or SWITCH");
        k = entry.count();
        break;
      }
    }
  }
  positionCount = position;
  require(vectorUnits == 1, "floorplan", "must hold exactly one VECTOR unit");
  require(c2c.links() == 0 || !switchPos.empty(), "c2c.links",
          "needs a SWITCH unit on the floorplan to attach the links to");
  require(slicePos.size() == memory.slices(), "floorplan",
          "must hold one MEMORY unit per slice (memory.slices = " +
              std::to_string(memory.slices()) + ", floorplan has " +
              std::to_string(slicePos.size()) + ")");
  require(planePos.size() == matrix.planes(), "floorplan",
          "must hold one MATRIX unit per plane (matrix.planes = " +
              std::to_string(matrix.planes()) + ", floorplan has " +
              std::to_string(planePos.size()) + ")");

  if (!problems.empty()) {
    error = source + ": invalid chip description:";
    for (const std::string &p : problems)
      error += "\n  " + p;
    return false;
  }
  vectorsPerSliceValue = memory.slice_bytes() / vectorBytes;
  std::string canonical;
  chip.SerializeToString(&canonical);
  fingerprintValue = fnv1a64(canonical);
  return true;
}

} // namespace hetc::chip
