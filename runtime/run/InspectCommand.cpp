//===- InspectCommand.cpp - hetc inspect: what an artifact holds ------===//

#include "runtime/run/InspectCommand.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/io/Tensor.h"

#include <cctype>
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
  case hetx::M_INSTALL_WEIGHTS:
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

/// A kernel kind without its PLAN_ prefix, lower case.
std::string kindName(hetx::PlanKernelKind kind) {
  std::string name = hetx::PlanKernelKind_Name(kind);
  if (name.rfind("PLAN_", 0) == 0)
    name = name.substr(5);
  for (char &c : name)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return name.empty() ? "kind " + std::to_string(int(kind)) : name;
}

/// Lists the plan's buffers and kernels.
void printPlan(const hetx::KernelPlan &plan, std::ostream &out) {
  out << "plan buffers (index: type shape origin):\n";
  for (int i = 0; i < plan.buffers_size(); ++i) {
    const hetx::PlanBuffer &b = plan.buffers(i);
    out << "  %" << i << ": " << hetx::DataType_Name(b.dtype()) << " [";
    for (int d = 0; d < b.shape_size(); ++d)
      out << (d ? "x" : "") << b.shape(d);
    out << "] ";
    switch (b.origin_case()) {
    case hetx::PlanBuffer::kInput:
      out << "input '" << b.input() << "'";
      break;
    case hetx::PlanBuffer::kConstantAddress:
      out << "constant @" << b.constant_address();
      break;
    case hetx::PlanBuffer::kViewOf:
      out << "view of %" << b.view_of();
      break;
    default:
      out << "scratch";
      break;
    }
    out << "\n";
  }
  out << "plan kernels (index: kind [opcode] operands -> result [node]):\n";
  for (int i = 0; i < plan.kernels_size(); ++i) {
    const hetx::PlanKernel &k = plan.kernels(i);
    out << "  #" << i << " " << kindName(k.kind());
    if (k.opcode() != hetx::OPCODE_UNSPECIFIED)
      out << " " << hetx::Opcode_Name(k.opcode());
    for (int o = 0; o < k.operands_size(); ++o)
      out << (o ? ", %" : " %") << k.operands(o);
    if (k.has_bias())
      out << " bias %" << k.bias();
    if (k.has_scale())
      out << " scale %" << k.scale();
    if (k.transposed_weight())
      out << " transposed";
    if (k.interleave() > 1)
      out << " interleave " << k.interleave() << " of " << k.interleave_cols()
          << " columns";
    out << " -> %" << k.result();
    if (k.kind() == hetx::PLAN_GATHER)
      out << " (" << k.index_runs_size() / 3 << " index runs)";
    if (!k.node().empty())
      out << " '" << k.node() << "'";
    out << "\n";
  }
  for (const hetx::PlanBinding &binding : plan.outputs())
    out << "  output '" << binding.name() << "' <- %" << binding.buffer()
        << "\n";
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
          << in.stride() << " rows [" << in.row_begin() << ", " << in.row_end()
          << ") of " << in.rows() << " by lane " << in.index_lane()
          << " chain #" << in.chain();
    if (in.opcode() == hetx::M_LOAD_WEIGHTS ||
        in.opcode() == hetx::M_LOAD_WEIGHTS_COLUMN)
      out << " row " << in.row();
    if (in.lanes())
      out << " lanes " << in.lanes();
    if (in.buffered())
      out << " buffered";
    if (in.parts() > 1)
      out << " parts " << in.parts();
    if (in.opcode() == hetx::S_PERMUTE)
      out << " map " << in.lane_map();
    if (in.dtype() != hetx::DTYPE_UNSPECIFIED && in.dtype() != hetx::F32)
      out << " " << hetx::DataType_Name(in.dtype());
    if (in.repeat() > 1)
      out << " repeat " << in.repeat() << " every " << in.repeat_cycles()
          << (in.repeat_step() ? " step " + std::to_string(in.repeat_step())
                               : "");
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
  uint64_t issues = 0, trains = 0;
  for (const hetx::Instruction &in : a.instructions()) {
    ++byOpcode[hetx::Opcode_Name(in.opcode())];
    ++byUnit[unitClass(in.opcode())];
    issues += std::max<uint32_t>(1, in.repeat());
    trains += in.repeat() > 1;
  }
  out << "instructions: " << a.instructions_size() << "\n";
  out << "  issues: " << issues << " (" << trains
      << " trains, each issue counted)\n";
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
    out << "  " << k.name() << ": " << k.first_cycle() << "-" << k.last_cycle()
        << ", " << k.instructions() << "\n";
  if (a.has_kernel_plan()) {
    const hetx::KernelPlan &plan = a.kernel_plan();
    std::map<std::string, int> byKind;
    for (const hetx::PlanKernel &k : plan.kernels())
      ++byKind[kindName(k.kind())];
    out << "kernel plan: " << plan.kernels_size() << " kernels, "
        << plan.buffers_size() << " buffers; by kind:";
    for (const auto &[kind, count] : byKind)
      out << " " << kind << " " << count << ";";
    out << "\n";
    if (options.plan)
      printPlan(plan, out);
  } else {
    out << "kernel plan: none (compiled from hisa-level MLIR; only the chip "
           "runs it)\n";
  }
  // The decode step's prefill programs, over its SRAM layout.
  out << "prefill programs: " << a.prefills_size() << "\n";
  for (const hetx::Artifact &p : a.prefills()) {
    uint64_t bytes = 0;
    for (const hetx::Constant &c : p.constants())
      bytes += c.data().size();
    out << "  inputs";
    for (const hetx::TensorBinding &b : p.inputs())
      out << " " << b.name()
          << io::shapeString({b.shape().begin(), b.shape().end()});
    out << ": " << p.instructions_size() << " instructions, predicted "
        << p.predicted_cycles() << " cycles, " << p.constants_size()
        << " constants of its own (" << bytes << " bytes)\n";
  }
  if (options.disassemble)
    disassemble(a, out);
  return 0;
}

} // namespace hetc::run
