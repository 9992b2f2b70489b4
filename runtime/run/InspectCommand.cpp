//===- InspectCommand.cpp - hetc inspect: what an artifact holds ------===//

#include "runtime/run/InspectCommand.h"

#include "runtime/artifact/ArtifactFile.h"

#include <map>
#include <sstream>

namespace hetc::run {

namespace {

std::string shapeText(const hetx::TensorBinding &b) {
  std::string text = "[";
  for (int i = 0; i < b.shape_size(); ++i)
    text += (i ? "x" : "") + std::to_string(b.shape(i));
  return text + "]";
}

void printBinding(const hetx::TensorBinding &b, std::ostream &out) {
  out << "  " << b.name() << ": " << hetx::DataType_Name(b.dtype()) << " "
      << shapeText(b) << " at row " << b.address() << " ("
      << b.vectors_per_row() << " vectors per row"
      << (b.packed() ? ", packed" : "") << ")";
  if (b.has_host_address())
    out << ", host vector " << b.host_address();
  out << "\n";
}

/// The functional unit an opcode issues on.
std::string unitKind(hetx::Opcode opcode, uint32_t unit) {
  switch (opcode) {
  case hetx::MEM_READ:
  case hetx::MEM_WRITE:
  case hetx::MEM_GATHER:
  case hetx::MEM_SCATTER:
    return "slice " + std::to_string(unit);
  case hetx::M_LOAD_WEIGHTS:
  case hetx::M_LOAD_WEIGHTS_COLUMN:
  case hetx::M_MATMUL:
    return "plane " + std::to_string(unit);
  case hetx::S_PERMUTE:
    return "switch " + std::to_string(unit);
  case hetx::DMA_IN:
  case hetx::DMA_OUT:
    return "dma " + std::to_string(unit);
  case hetx::C2C_SEND:
  case hetx::C2C_RECV:
    return "link " + std::to_string(unit);
  default:
    return "vector";
  }
}

std::string unitClass(hetx::Opcode opcode) {
  std::string unit = unitKind(opcode, 0);
  return unit.substr(0, unit.find(' '));
}

std::string streamText(const hetx::StreamRef &s) {
  return std::string(s.dir() == hetx::EAST ? "E" : "W") +
         std::to_string(s.id());
}

void disassemble(const hetx::Artifact &a, std::ostream &out) {
  out << "instructions (cycle opcode unit [address] sources -> destination "
         "[node]):\n";
  for (int i = 0; i < a.instructions_size(); ++i) {
    const hetx::Instruction &in = a.instructions(i);
    out << "  #" << i << " " << in.cycle() << " "
        << hetx::Opcode_Name(in.opcode()) << " "
        << unitKind(in.opcode(), in.unit());
    if (in.opcode() == hetx::MEM_READ || in.opcode() == hetx::MEM_WRITE ||
        in.opcode() == hetx::DMA_IN || in.opcode() == hetx::DMA_OUT)
      out << " @" << in.address();
    if (in.part())
      out << " part " << in.part();
    if (in.opcode() == hetx::DMA_IN || in.opcode() == hetx::DMA_OUT)
      out << " host @" << in.host_address();
    if (in.opcode() == hetx::MEM_GATHER || in.opcode() == hetx::MEM_SCATTER)
      out << " table @" << in.address() << (in.part() ? " part " : "")
          << (in.part() ? std::to_string(in.part()) : "") << " stride "
          << in.stride()
          << " rows [" << in.row_begin() << ", " << in.row_end() << ") of "
          << in.rows() << " by lane " << in.index_lane() << " chain #"
          << in.chain();
    if (in.opcode() == hetx::M_LOAD_WEIGHTS ||
        in.opcode() == hetx::M_LOAD_WEIGHTS_COLUMN)
      out << " row " << in.row();
    if (in.lanes())
      out << " lanes " << in.lanes();
    if (in.opcode() == hetx::S_PERMUTE)
      out << " map " << in.lane_map();
    if (in.dtype() != hetx::DTYPE_UNSPECIFIED && in.dtype() != hetx::F32)
      out << " " << hetx::DataType_Name(in.dtype());
    for (int s = 0; s < in.src_size(); ++s) {
      out << (s ? ", " : " ") << streamText(in.src(s));
      if (in.src(s).has_producer())
        out << "(#" << in.src(s).producer() << ")";
    }
    if (in.has_dst())
      out << " -> " << streamText(in.dst());
    if (in.node() > 0 && int(in.node()) < a.nodes_size())
      out << " '" << a.nodes(int(in.node())) << "'";
    out << "\n";
  }
}

} // namespace

int inspectCommand(const InspectOptions &options, std::ostream &out,
                   std::ostream &err) {
  hetx::Artifact a;
  std::string error;
  if (!artifact::readFile(options.artifactPath, a, error)) {
    err << "error: " << error << "\n";
    return 1;
  }
  out << "artifact: " << options.artifactPath << "\n";
  out << "chip: '" << a.chip().name() << "' revision " << a.chip().revision()
      << "\n";
  out << "producer: " << a.producer() << "\n";
  out << "predicted cycles: " << a.predicted_cycles() << "\n";
  out << "inputs (" << a.inputs_size() << "):\n";
  for (const hetx::TensorBinding &b : a.inputs())
    printBinding(b, out);
  out << "outputs (" << a.outputs_size() << "):\n";
  for (const hetx::TensorBinding &b : a.outputs())
    printBinding(b, out);
  uint64_t constantBytes = 0;
  for (const hetx::Constant &c : a.constants())
    constantBytes += c.data().size();
  out << "constants: " << a.constants_size() << " (" << constantBytes
      << " bytes of data)\n";

  std::map<std::string, uint64_t> byOpcode, byUnit;
  for (const hetx::Instruction &in : a.instructions()) {
    ++byOpcode[hetx::Opcode_Name(in.opcode())];
    ++byUnit[unitClass(in.opcode())];
  }
  out << "instructions: " << a.instructions_size() << "\n";
  out << "  by unit:";
  for (const auto &[unit, count] : byUnit)
    out << " " << unit << " " << count << ";";
  out << "\n  by opcode:";
  for (const auto &[opcode, count] : byOpcode)
    out << " " << opcode << " " << count << ";";
  out << "\n";
  out << "lane maps: " << a.lane_maps_size() << "\n";
  out << "kernels (" << a.kernels_size()
      << "; name: first-last cycle, instructions):\n";
  for (const hetx::Kernel &k : a.kernels())
    out << "  " << k.name() << ": " << k.first_cycle() << "-"
        << k.last_cycle() << ", " << k.instructions() << "\n";
  if (options.disassemble)
    disassemble(a, out);
  return 0;
}

} // namespace hetc::run
