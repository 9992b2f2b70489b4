//===- ChipSpec.cpp - Chip file parsing and validation ----------------===//

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/SafeRead.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <sstream>

namespace hetc::chip {

uint64_t fnv1a64(const char *bytes, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(bytes[i]);
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
  // A chip description is a few kilobytes of text; a megabyte is plenty.
  std::string text;
  if (!io::readRegularFile(path, uint64_t(1) << 20, text, error)) {
    error = path + ": chip file " + error;
    return false;
  }
  return parse(text, path, out, error);
}

bool ChipSpec::validate(const std::string &source, std::string &error) {
  std::vector<std::string> problems;
  auto require = [&](bool ok, const std::string &field,
                     const std::string &what) {
    if (!ok)
      problems.push_back("field '" + field + "' " + what);
  };

  // Every field has an upper bound as well: the chip model sizes its SRAM,
  // streams and queues from these figures, so a damaged or hostile file
  // must not make it allocate without limit. The bounds lie far above any
  // published chip (tsp-v1 is 320 lanes, 88 slices of 2.5 MiB, 32 streams).
  auto inRange = [&](uint64_t value, uint64_t low, uint64_t high,
                     const std::string &field) {
    require(value >= low && value <= high, field,
            "must be in [" + std::to_string(low) + ", " +
                std::to_string(high) + "]");
  };
  require(!chip.name().empty(), "name", "must be set");
  require(chip.clock_mhz() > 0 && chip.clock_mhz() <= 100000, "clock_mhz",
          "must be > 0 and at most 100000");
  inRange(chip.lanes(), 1, 4096, "lanes");
  const Streams &streams = chip.streams();
  require(streams.per_direction() >= kElementBytes &&
              streams.per_direction() <= 1024 &&
              streams.per_direction() % kElementBytes == 0,
          "streams.per_direction",
          "must be a multiple of " + std::to_string(kElementBytes) +
              " in [" + std::to_string(kElementBytes) +
              ", 1024] (one fp32 vector takes that many byte-wide streams)");
  inRange(streams.hop_cycles(), 1, 1024, "streams.hop_cycles");
  const Memory &memory = chip.memory();
  inRange(memory.slices(), 1, 4096, "memory.slices");
  inRange(memory.banks_per_slice(), 1, 64, "memory.banks_per_slice");
  inRange(memory.accesses_per_bank_per_cycle(), 1, 64,
          "memory.accesses_per_bank_per_cycle");
  uint64_t vectorBytes = uint64_t(chip.lanes()) * kElementBytes;
  require(chip.lanes() > 0 && memory.slice_bytes() >= vectorBytes &&
              memory.slice_bytes() % vectorBytes == 0,
          "memory.slice_bytes",
          "must be a positive multiple of one fp32 vector (lanes * " +
              std::to_string(kElementBytes) + " bytes)");
  // At most 4 GiB of SRAM in all: eighteen times tsp-v1's 220 MiB.
  constexpr uint64_t kMaxSramBytes = uint64_t(4) << 30;
  require(memory.slice_bytes() <= kMaxSramBytes / std::max(1u, memory.slices()),
          "memory.slice_bytes",
          "times memory.slices must be at most " +
              std::to_string(kMaxSramBytes) + " bytes of SRAM");
  // A run of interleaved addresses stays in one slice, and every slice
  // takes whole runs.
  if (memory.interleave_vectors() != 0 && vectorBytes != 0 &&
      memory.slice_bytes() >= vectorBytes)
    require((memory.slice_bytes() / vectorBytes) %
                    memory.interleave_vectors() == 0,
            "memory.interleave_vectors",
            "must divide the vectors one slice holds (slice_bytes / (lanes * " +
                std::to_string(kElementBytes) + ") = " +
                std::to_string(memory.slice_bytes() / vectorBytes) + ")");
  const MatrixUnit &matrix = chip.matrix();
  require(matrix.planes() > 0, "matrix.planes", "must be > 0");
  require(matrix.rows() == chip.lanes() && matrix.cols() == chip.lanes(),
          "matrix.rows/cols",
          "must both equal 'lanes' (a plane takes one vector per row)");
  inRange(matrix.cycles_16bit(), 0, 64, "matrix.cycles_16bit");
  inRange(matrix.cycles_32bit(), 0, 64, "matrix.cycles_32bit");
  inRange(matrix.install_rows(), 0, 1024, "matrix.install_rows");
  inRange(chip.vector().alus(), 1, 1024, "vector.alus");
  const Latencies &lat = chip.latency();
  constexpr uint64_t kMaxLatency = 100000;
  inRange(lat.mem_read(), 1, kMaxLatency, "latency.mem_read");
  inRange(lat.mem_write(), 1, kMaxLatency, "latency.mem_write");
  inRange(lat.vector_op(), 1, kMaxLatency, "latency.vector_op");
  inRange(lat.vector_reduce(), 1, kMaxLatency, "latency.vector_reduce");
  inRange(lat.matrix_load(), 1, kMaxLatency, "latency.matrix_load");
  inRange(lat.matrix_mul(), 1, kMaxLatency, "latency.matrix_mul");
  inRange(lat.switch_op(), 1, kMaxLatency, "latency.switch_op");
  inRange(chip.dma().engines(), 1, 64, "dma.engines");
  inRange(chip.dma().bytes_per_cycle(), 1, 1 << 20, "dma.bytes_per_cycle");
  inRange(chip.dma().latency(), 1, 1000000, "dma.latency");
  const ChipToChip &c2c = chip.c2c();
  inRange(c2c.links(), 0, 64, "c2c.links");
  if (c2c.links() > 0) {
    inRange(c2c.bytes_per_cycle(), 1, 1 << 20, "c2c.bytes_per_cycle");
    inRange(c2c.latency(), 1, 1000000, "c2c.latency");
    inRange(c2c.receive_buffer(), 1, 65536, "c2c.receive_buffer");
  }
  inRange(chip.dispatch().per_cycle(), 1, 1024, "dispatch.per_cycle");
  inRange(chip.dispatch().queue_depth(), 1, 65536, "dispatch.queue_depth");

  // Expand the floorplan into positions.
  uint32_t position = 0, vectorUnits = 0;
  for (int i = 0; i < chip.floorplan_size(); ++i) {
    const FloorplanEntry &entry = chip.floorplan(i);
    std::string field = "floorplan[" + std::to_string(i) + "]";
    // The positions of all entries together are bounded, not only each.
    constexpr uint32_t kMaxPositions = 16384;
    if (entry.count() == 0 || entry.count() > kMaxPositions - position) {
      problems.push_back("field '" + field + ".count' must be at least 1, "
                         "and the floorplan at most " +
                         std::to_string(kMaxPositions) + " units in all");
      break;
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
  // Weight rows reach the planes of one side over the streams flowing
  // towards them: together they take at most one direction's groups.
  uint64_t west = 0, east = 0;
  for (uint32_t p : planePos)
    ++(p < vectorPos ? west : east);
  uint64_t groups = chip.streams().per_direction() / kElementBytes;
  uint64_t rows = std::max<uint32_t>(matrix.install_rows(), 1);
  require(groups == 0 || rows * std::max(west, east) <= groups,
          "matrix.install_rows",
          "times the planes on one side of the vector unit (" +
              std::to_string(std::max(west, east)) +
              ") must be at most the stream groups of one direction "
              "(streams.per_direction / 4 = " +
              std::to_string(groups) +
              "): weight rows reach a plane over "
              "the streams");

  if (!problems.empty()) {
    error = source + ": invalid chip description:";
    for (const std::string &p : problems)
      error += "\n  " + p;
    return false;
  }
  vectorsPerSliceValue = memory.slice_bytes() / vectorBytes;
  interleaveValue = memory.interleave_vectors() == vectorsPerSliceValue
                        ? 0
                        : memory.interleave_vectors();
  std::string canonical;
  chip.SerializeToString(&canonical);
  fingerprintValue = fnv1a64(canonical);
  return true;
}

} // namespace hetc::chip
