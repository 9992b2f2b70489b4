//===- TraceWriter.cpp - Chrome trace-event JSON of a chip-model run ---===//

#include "runtime/run/TraceWriter.h"

#include "runtime/sim/HazardText.h"
#include "runtime/sim/Program.h"

#include <cstdio>
#include <map>

namespace hetc::run {

namespace {
/// Length of the well-formed UTF-8 sequence at `text[i]`, or 0.
size_t utf8Length(const std::string &text, size_t i) {
  auto byte = [&](size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
  };
  unsigned lead = byte(i);
  size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
  if (lead < 0xC2 || lead > 0xF4)
    return 0;
  // The second byte's range excludes overlong forms, surrogates and code
  // points beyond U+10FFFF.
  unsigned low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
  unsigned high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
  if (byte(i + 1) < low || byte(i + 1) > high)
    return 0;
  for (size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
      return 0;
  return length;
}

/// Microseconds at the chip clock, to the picosecond.
std::string micros(uint64_t cycles, double clockMHz) {
  char text[40];
  std::snprintf(text, sizeof(text), "%.6f", double(cycles) / clockMHz);
  return text;
}

/// The floorplan position of the unit an instruction runs on; positions
/// identify units.
uint32_t unitPosition(const hetx::Instruction &instr,
                      const chip::ChipSpec &chip) {
  switch (sim::opClassOf(instr.opcode()).value_or(sim::OpClass::VectorUnary)) {
  case sim::OpClass::MemRead:
  case sim::OpClass::MemWrite:
  case sim::OpClass::MemGather:
  case sim::OpClass::MemScatter:
    return chip.slicePosition(instr.unit());
  case sim::OpClass::LoadWeights:
  case sim::OpClass::InstallWeights:
  case sim::OpClass::MatMul:
    return chip.planePosition(instr.unit());
  case sim::OpClass::Dma:
    // Not on the floorplan: tracks after its last position.
    return chip.positions() + instr.unit();
  case sim::OpClass::Link:
    // Own tracks, after the DMA engines'.
    return chip.positions() + chip.proto().dma().engines() + instr.unit();
  case sim::OpClass::Permute:
    return chip.switchPosition(instr.unit());
  default:
    return chip.vectorPosition();
  }
}

/// The fields of an instruction that matter for its opcode.
std::string operandArgs(const hetx::Instruction &instr) {
  switch (instr.opcode()) {
  case hetx::MEM_READ:
  case hetx::MEM_WRITE:
    return ",\"address\":" + std::to_string(instr.address()) +
           (instr.part() ? ",\"part\":" + std::to_string(instr.part()) : "");
  case hetx::MEM_GATHER:
  case hetx::MEM_SCATTER:
    return ",\"address\":" + std::to_string(instr.address()) +
           ",\"stride\":" + std::to_string(instr.stride()) + ",\"rows\":[" +
           std::to_string(instr.row_begin()) + "," +
           std::to_string(instr.row_end()) + "]";
  case hetx::M_LOAD_WEIGHTS:
    return ",\"row\":" + std::to_string(instr.row()) +
           (instr.buffered() ? ",\"buffered\":true" : "");
  case hetx::M_LOAD_WEIGHTS_COLUMN:
    return ",\"column\":" + std::to_string(instr.row());
  case hetx::M_MATMUL:
  case hetx::M_INSTALL_WEIGHTS:
    return "";
  case hetx::DMA_IN:
  case hetx::DMA_OUT:
    return ",\"address\":" + std::to_string(instr.address()) +
           ",\"host_address\":" + std::to_string(instr.host_address());
  default:
    return ",\"lanes\":" + std::to_string(instr.lanes());
  }
}

/// A track: one functional unit, or an overflow track of one.
struct Track {
  std::string name;
  int64_t sortIndex;
};

/// Writes the elements of a JSON array, one a line, with commas between.
class ArrayWriter {
public:
  explicit ArrayWriter(std::ostream &out) : out(out) {}
  std::ostream &next() {
    out << (first ? "\n" : ",\n");
    first = false;
    return out;
  }

private:
  std::ostream &out;
  bool first = true;
};

void writeMetadata(ArrayWriter &array, const char *name, size_t tid,
                   const std::string &args) {
  array.next() << "{\"name\":\"" << name
               << "\",\"ph\":\"M\",\"pid\":0,\"tid\":" << tid << ",\"args\":{"
               << args << "}}";
}
} // namespace

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      size_t length = utf8Length(text, i);
      out += length ? text.substr(i, length) : "\\ufffd";
      i += length ? length : 1;
      continue;
    }
    ++i;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

TraceCounts writeTrace(std::ostream &out,
                       const std::vector<const hetx::Artifact *> &programs,
                       const chip::ChipSpec &chip,
                       const std::vector<TraceEvent> &events,
                       const std::vector<TraceSpan> &spans,
                       const std::string &spanTrack) {
  // Events come by cycle, so first fit onto a unit's tracks keeps every
  // track free of overlaps.
  std::vector<Track> tracks;
  // The spans' track sorts before every unit's.
  if (!spans.empty())
    tracks.push_back({spanTrack, -1000});
  std::map<uint32_t, std::vector<std::pair<uint64_t, size_t>>> unitTracks;
  std::vector<size_t> tids(events.size());
  for (size_t e = 0; e < events.size(); ++e) {
    const TraceEvent &event = events[e];
    const hetx::Instruction &instr =
        programs[event.program]->instructions(int(event.index));
    uint32_t position = unitPosition(instr, chip);
    auto &own = unitTracks[position];
    size_t k = 0;
    while (k < own.size() && own[k].first > event.cycle)
      ++k;
    if (k == own.size()) {
      std::string name = sim::HazardText::unitName(instr);
      if (k > 0)
        name += " (" + std::to_string(k + 1) + ")";
      own.push_back({0, tracks.size()});
      tracks.push_back({name, int64_t(position) * 1000 + int64_t(k)});
    }
    own[k].first = event.cycle + event.latency;
    tids[e] = own[k].second;
  }

  double clock = chip.clockMHz();
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[";
  ArrayWriter array(out);
  writeMetadata(array, "process_name", 0,
                "\"name\":" + jsonString("chip '" + chip.name() + "'"));
  for (size_t tid = 0; tid < tracks.size(); ++tid) {
    writeMetadata(array, "thread_name", tid,
                  "\"name\":" + jsonString(tracks[tid].name));
    writeMetadata(array, "thread_sort_index", tid,
                  "\"sort_index\":" + std::to_string(tracks[tid].sortIndex));
  }
  for (const TraceSpan &span : spans)
    array.next() << "{\"name\":" << jsonString(span.name)
                 << ",\"ph\":\"X\",\"pid\":0,\"tid\":0,\"ts\":"
                 << micros(span.cycle, clock)
                 << ",\"dur\":" << micros(span.cycles, clock)
                 << ",\"args\":{\"cycle\":" << span.cycle
                 << ",\"cycles\":" << span.cycles
                 << (span.args.empty() ? "" : "," + span.args) << "}}";
  for (size_t e = 0; e < events.size(); ++e) {
    const TraceEvent &event = events[e];
    const hetx::Artifact &artifact = *programs[event.program];
    const hetx::Instruction &instr = artifact.instructions(int(event.index));
    std::string node = instr.node() < uint32_t(artifact.nodes_size())
                           ? artifact.nodes(int(instr.node()))
                           : "";
    array.next() << "{\"name\":"
                 << jsonString(sim::HazardText::opcodeName(instr.opcode()) +
                               " #" + std::to_string(event.index))
                 << ",\"ph\":\"X\",\"pid\":0,\"tid\":" << tids[e]
                 << ",\"ts\":" << micros(event.cycle, clock)
                 << ",\"dur\":" << micros(event.latency, clock)
                 << ",\"args\":{\"node\":" << jsonString(node)
                 << ",\"cycle\":" << event.cycle
                 << ",\"latency\":" << event.latency
                 << ",\"unit\":" << jsonString(sim::HazardText::unitName(instr))
                 << operandArgs(instr) << "}}";
  }
  out << "\n]}\n";
  return {events.size() + spans.size(), tracks.size()};
}

} // namespace hetc::run
