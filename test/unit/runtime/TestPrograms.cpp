//===- TestPrograms.cpp - Hand-built chip programs for runtime tests ---===//

#include "TestPrograms.h"

#include "runtime/artifact/ArtifactFile.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Simulator.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace hetc::test {

std::string sourcePath(const std::string &relative) {
  const char *root = std::getenv("HETC_SOURCE_DIR");
  return std::string(root && *root ? root : ".") + "/" + relative;
}

chip::ChipSpec loadChip(const std::string &name) {
  chip::ChipSpec chip;
  std::string error;
  EXPECT_TRUE(
      chip::ChipSpec::load(sourcePath("chips/" + name + ".chip"), chip, error))
      << error;
  return chip;
}

chip::ChipSpec testChipWith(const std::function<void(chip::Chip &)> &edit) {
  chip::Chip proto = loadChip("test-chip").proto();
  edit(proto);
  std::string text, error;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  chip::ChipSpec chip;
  EXPECT_TRUE(chip::ChipSpec::parse(text, "edited test-chip", chip, error))
      << error;
  return chip;
}

uint32_t latencyOf(const chip::ChipSpec &chip, hetx::Opcode opcode) {
  const chip::Latencies &lat = chip.proto().latency();
  switch (opcode) {
  case hetx::MEM_READ:
  case hetx::MEM_GATHER:
    return lat.mem_read();
  case hetx::MEM_WRITE:
  case hetx::MEM_SCATTER:
    return lat.mem_write();
  case hetx::V_REDUCE_SUM:
  case hetx::V_REDUCE_MAX:
    return lat.vector_reduce();
  case hetx::M_LOAD_WEIGHTS:
    return lat.matrix_load();
  case hetx::M_MATMUL:
    return lat.matrix_mul();
  case hetx::DMA_IN:
  case hetx::DMA_OUT:
    return chip.proto().dma().latency();
  case hetx::C2C_SEND:
    return chip.proto().c2c().latency();
  case hetx::C2C_RECV:
    return lat.switch_op();
  case hetx::S_PERMUTE:
    return lat.switch_op();
  default:
    return lat.vector_op();
  }
}

ProgramBuilder::ProgramBuilder(const chip::ChipSpec &chip) : chip(chip) {
  *artifact.mutable_chip() = artifact::identityOf(chip);
  artifact.set_producer("hand-built test program");
  artifact.add_nodes("");
}

ProgramBuilder::ProgramBuilder(const chip::ChipSpec &chip, hetx::Artifact base)
    : chip(chip), artifact(std::move(base)) {}

void ProgramBuilder::setNode(const std::string &name) {
  auto it = std::find(artifact.nodes().begin(), artifact.nodes().end(), name);
  node = uint32_t(it - artifact.nodes().begin());
  if (it == artifact.nodes().end())
    artifact.add_nodes(name);
}

hetx::Instruction &ProgramBuilder::add(uint64_t cycle, hetx::Opcode opcode,
                                       uint32_t unit) {
  hetx::Instruction &instr = *artifact.add_instructions();
  instr.set_cycle(cycle);
  instr.set_opcode(opcode);
  instr.set_unit(unit);
  instr.set_node(node);
  return instr;
}

static void setStream(hetx::StreamRef &ref, Stream stream) {
  ref.set_id(stream.id);
  ref.set_dir(stream.dir);
}

hetx::Instruction &ProgramBuilder::read(uint64_t cycle, uint64_t address,
                                        Stream dst) {
  hetx::Instruction &instr = add(cycle, hetx::MEM_READ, chip.sliceOf(address));
  instr.set_address(address);
  setStream(*instr.mutable_dst(), dst);
  return instr;
}

hetx::Instruction &ProgramBuilder::indexed(uint64_t cycle, hetx::Opcode opcode,
                                           uint32_t slice, uint64_t address,
                                           uint64_t stride, uint64_t rows,
                                           uint64_t begin, uint64_t end,
                                           uint32_t lane) {
  hetx::Instruction &instr = add(cycle, opcode, slice);
  instr.set_address(address);
  instr.set_stride(stride);
  instr.set_rows(rows);
  instr.set_row_begin(begin);
  instr.set_row_end(end);
  instr.set_index_lane(lane);
  return instr;
}

hetx::Instruction &ProgramBuilder::gather(uint64_t cycle, uint32_t slice,
                                          uint64_t address, uint64_t stride,
                                          uint64_t rows, uint64_t begin,
                                          uint64_t end, uint32_t lane,
                                          Stream src, Stream dst) {
  hetx::Instruction &instr = indexed(cycle, hetx::MEM_GATHER, slice, address,
                                     stride, rows, begin, end, lane);
  setStream(*instr.add_src(), src);
  setStream(*instr.mutable_dst(), dst);
  return instr;
}

hetx::Instruction &ProgramBuilder::scatter(uint64_t cycle, uint32_t slice,
                                           uint64_t address, uint64_t stride,
                                           uint64_t rows, uint64_t begin,
                                           uint64_t end, uint32_t lane,
                                           Stream index, Stream value) {
  hetx::Instruction &instr = indexed(cycle, hetx::MEM_SCATTER, slice, address,
                                     stride, rows, begin, end, lane);
  setStream(*instr.add_src(), index);
  setStream(*instr.add_src(), value);
  return instr;
}

hetx::Instruction &ProgramBuilder::write(uint64_t cycle, uint64_t address,
                                         Stream src) {
  hetx::Instruction &instr = add(cycle, hetx::MEM_WRITE, chip.sliceOf(address));
  instr.set_address(address);
  setStream(*instr.add_src(), src);
  return instr;
}

hetx::Instruction &ProgramBuilder::vector(uint64_t cycle, hetx::Opcode opcode,
                                          std::vector<Stream> src, Stream dst) {
  hetx::Instruction &instr = add(cycle, opcode, 0);
  for (Stream stream : src)
    setStream(*instr.add_src(), stream);
  setStream(*instr.mutable_dst(), dst);
  instr.set_lanes(chip.lanes());
  return instr;
}

hetx::Instruction &ProgramBuilder::loadWeights(uint64_t cycle, uint32_t plane,
                                               uint32_t row, Stream src) {
  hetx::Instruction &instr = add(cycle, hetx::M_LOAD_WEIGHTS, plane);
  instr.set_row(row);
  setStream(*instr.add_src(), src);
  return instr;
}

hetx::Instruction &ProgramBuilder::matmul(uint64_t cycle, uint32_t plane,
                                          Stream src, Stream dst) {
  hetx::Instruction &instr = add(cycle, hetx::M_MATMUL, plane);
  setStream(*instr.add_src(), src);
  setStream(*instr.mutable_dst(), dst);
  return instr;
}

hetx::Instruction &ProgramBuilder::permute(uint64_t cycle, uint32_t unit,
                                           std::vector<Stream> src, Stream dst,
                                           const std::vector<uint32_t> &map) {
  hetx::Instruction &instr = add(cycle, hetx::S_PERMUTE, unit);
  for (Stream stream : src)
    setStream(*instr.add_src(), stream);
  setStream(*instr.mutable_dst(), dst);
  instr.set_lanes(uint32_t(map.size()));
  instr.set_lane_map(uint32_t(artifact.lane_maps_size()));
  hetx::LaneMap *entry = artifact.add_lane_maps();
  for (uint32_t lane : map)
    entry->add_lanes(lane);
  return instr;
}

static void setBinding(hetx::TensorBinding &binding, const std::string &name,
                       const std::vector<int64_t> &shape, uint64_t address) {
  binding.set_name(name);
  binding.set_dtype(hetx::F32);
  for (int64_t dim : shape)
    binding.add_shape(dim);
  binding.set_address(address);
  binding.set_vectors_per_row(1);
}

void ProgramBuilder::input(const std::string &name, std::vector<int64_t> shape,
                           uint64_t address) {
  setBinding(*artifact.add_inputs(), name, shape, address);
}

void ProgramBuilder::output(const std::string &name, std::vector<int64_t> shape,
                            uint64_t address) {
  setBinding(*artifact.add_outputs(), name, shape, address);
}

void ProgramBuilder::constant(const std::string &name,
                              std::vector<int64_t> shape, uint64_t address,
                              const std::vector<float> &values) {
  hetx::Constant &constant = *artifact.add_constants();
  setBinding(*constant.mutable_binding(), name, shape, address);
  std::string bytes(values.size() * 4, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], 4);
    for (int b = 0; b < 4; ++b)
      bytes[4 * i + b] = char((bits >> (8 * b)) & 0xff);
  }
  constant.set_data(bytes);
}

hetx::Artifact ProgramBuilder::build() const {
  hetx::Artifact result = artifact;
  resort(result, chip);
  return result;
}

void resort(hetx::Artifact &artifact, const chip::ChipSpec &chip) {
  auto *list = artifact.mutable_instructions();
  std::vector<hetx::Instruction> instrs(list->begin(), list->end());
  std::stable_sort(instrs.begin(), instrs.end(),
                   [](const hetx::Instruction &a, const hetx::Instruction &b) {
                     return a.cycle() < b.cycle();
                   });
  list->Clear();
  uint64_t cycles = 0;
  for (const hetx::Instruction &instr : instrs) {
    *list->Add() = instr;
    cycles = std::max<uint64_t>(cycles, instr.cycle() +
                                            latencyOf(chip, instr.opcode()));
  }
  artifact.set_predicted_cycles(cycles);
}

/// Cycle at which a value emitted at `from` at `cycle` reaches `to`.
static uint64_t arrival(const chip::ChipSpec &chip, uint64_t cycle,
                        uint32_t from, uint32_t to) {
  uint32_t distance = from < to ? to - from : from - to;
  return cycle + uint64_t(distance) * chip.proto().streams().hop_cycles();
}

TestProgram addProgram(const chip::ChipSpec &chip) {
  uint32_t lanes = chip.lanes();
  uint64_t perSlice = chip.vectorsPerSlice();
  uint64_t addrA = 0, addrB = 4 * perSlice, addrY = 5 * perSlice;
  uint32_t posA = chip.slicePosition(0), posB = chip.slicePosition(4),
           posY = chip.slicePosition(5), posV = chip.vectorPosition();
  uint32_t readLat = latencyOf(chip, hetx::MEM_READ);
  uint32_t hop = chip.proto().streams().hop_cycles();

  ProgramBuilder builder(chip);
  builder.setNode("Add_0");
  builder.input("a", {lanes}, addrA);
  builder.input("b", {lanes}, addrB);
  builder.output("y", {lanes}, addrY);
  uint64_t readA = 2;
  uint64_t atVector = arrival(chip, readA + readLat, posA, posV);
  uint64_t readB = atVector - (posB - posV) * hop - readLat;
  builder.read(readA, addrA, east(0));
  builder.read(readB, addrB, west(0));
  builder.vector(atVector, hetx::V_ADD, {east(0), west(0)}, east(4));
  builder.write(
      arrival(chip, atVector + latencyOf(chip, hetx::V_ADD), posV, posY), addrY,
      east(4));

  TestProgram program{builder.build(), {}};
  io::Tensor a{{lanes}, {}}, b{{lanes}, {}};
  for (uint32_t i = 0; i < lanes; ++i) {
    a.data.push_back(0.5f * float(i) - 3.0f);
    b.data.push_back(1.25f * float(i) - 7.0f);
  }
  program.inputs["a"] = a;
  program.inputs["b"] = b;
  return program;
}

TestProgram matmulProgram(const chip::ChipSpec &chip) {
  uint32_t lanes = chip.lanes();
  uint64_t perSlice = chip.vectorsPerSlice();
  uint64_t addrW = 1 * perSlice, addrX = 2 * perSlice, addrY = 3 * perSlice;
  uint32_t posW = chip.slicePosition(1), posX = chip.slicePosition(2),
           posY = chip.slicePosition(3), posP = chip.planePosition(0);
  uint32_t readLat = latencyOf(chip, hetx::MEM_READ);
  uint32_t hop = chip.proto().streams().hop_cycles();

  ProgramBuilder builder(chip);
  builder.setNode("MatMul_0");
  std::vector<float> weights;
  for (uint32_t i = 0; i < lanes; ++i)
    for (uint32_t j = 0; j < lanes; ++j)
      weights.push_back(float(int(i + 2 * j) % 5 - 2));
  builder.constant("W", {lanes, lanes}, addrW, weights);
  builder.input("x", {1, lanes}, addrX);
  builder.output("y", {1, lanes}, addrY);

  // Row r is read at 2 + r and installed when it reaches the plane.
  uint64_t lastLoad = 0;
  for (uint32_t r = 0; r < lanes; ++r) {
    uint64_t readAt = 2 + r;
    lastLoad = arrival(chip, readAt + readLat, posW, posP);
    builder.read(readAt, addrW + r, west(0));
    builder.loadWeights(lastLoad, 0, r, west(0));
  }
  uint64_t multiplyAt = lastLoad + latencyOf(chip, hetx::M_LOAD_WEIGHTS);
  builder.read(multiplyAt - uint64_t(posX - posP) * hop - readLat, addrX,
               west(4));
  builder.matmul(multiplyAt, 0, west(4), east(4));
  builder.write(
      arrival(chip, multiplyAt + latencyOf(chip, hetx::M_MATMUL), posP, posY),
      addrY, east(4));

  TestProgram program{builder.build(), {}};
  io::Tensor x{{1, lanes}, {}};
  for (uint32_t i = 0; i < lanes; ++i)
    x.data.push_back(float(int(i) - 8));
  program.inputs["x"] = x;
  return program;
}

TestProgram permuteProgram(const chip::ChipSpec &chip) {
  uint32_t lanes = chip.lanes();
  uint64_t perSlice = chip.vectorsPerSlice();
  uint64_t addrA = 0, addrB = perSlice, addrY = 2 * perSlice;
  uint32_t posA = chip.slicePosition(0), posB = chip.slicePosition(1),
           posY = chip.slicePosition(2), posS = chip.switchPosition(0);
  uint32_t readLat = latencyOf(chip, hetx::MEM_READ);
  uint32_t permuteLat = latencyOf(chip, hetx::S_PERMUTE);
  uint32_t hop = chip.proto().streams().hop_cycles();

  ProgramBuilder builder(chip);
  builder.setNode("Concat_0");
  builder.input("a", {lanes}, addrA);
  builder.input("b", {lanes}, addrB);
  builder.output("y", {lanes}, addrY);
  uint64_t readB = 2;
  uint64_t first = readB + readLat + uint64_t(posB - posS) * hop;
  uint64_t second = first + permuteLat;
  uint64_t readA = second - uint64_t(posA - posS) * hop - readLat;
  std::vector<uint32_t> firstMap(lanes, sim::kLaneKeep);
  for (uint32_t j = 0; j < 8; ++j)
    firstMap[j] = lanes - 1 - j;
  std::vector<uint32_t> secondMap(14, sim::kLaneKeep);
  for (uint32_t j = 8; j < 14; ++j)
    secondMap[j] = j - 8;
  builder.read(readB, addrB, west(0));
  builder.permute(first, 0, {west(0)}, west(4), firstMap);
  builder.read(readA, addrA, west(8));
  builder.permute(second, 0, {west(8), west(4)}, east(4), secondMap);
  builder.write(arrival(chip, second + permuteLat, posS, posY), addrY, east(4));

  TestProgram program{builder.build(), {}};
  io::Tensor a{{lanes}, {}}, b{{lanes}, {}};
  for (uint32_t i = 0; i < lanes; ++i) {
    a.data.push_back(float(i) + 0.5f);
    b.data.push_back(-float(i) - 100.0f);
  }
  program.inputs["a"] = a;
  program.inputs["b"] = b;
  return program;
}

int findInstruction(const hetx::Artifact &artifact, hetx::Opcode opcode,
                    uint64_t cycle) {
  for (int i = 0; i < artifact.instructions_size(); ++i)
    if (artifact.instructions(i).opcode() == opcode &&
        artifact.instructions(i).cycle() == cycle)
      return i;
  return -1;
}

int firstWith(const hetx::Artifact &artifact, hetx::Opcode opcode) {
  for (int i = 0; i < artifact.instructions_size(); ++i)
    if (artifact.instructions(i).opcode() == opcode)
      return i;
  return -1;
}

sim::SimResult simulateOk(const TestProgram &program,
                          const chip::ChipSpec &chip) {
  sim::SimResult result;
  std::string error;
  EXPECT_TRUE(
      sim::simulate(program.artifact, chip, program.inputs, result, error))
      << error;
  return result;
}

std::string simulateError(const TestProgram &program,
                          const chip::ChipSpec &chip) {
  sim::SimResult result;
  std::string error;
  bool ok =
      sim::simulate(program.artifact, chip, program.inputs, result, error);
  // Timing-only mode must accept and reject exactly the same programs with
  // the same words; only the inputs, which it does not read, may differ.
  if (ok || error.rfind("hazard: ", 0) == 0 ||
      error.rfind("output '", 0) == 0) {
    sim::SimOptions timing;
    timing.timingOnly = true;
    std::string timingError;
    sim::simulate(program.artifact, chip, {}, timing, result, timingError);
    EXPECT_EQ(timingError, ok ? "" : error) << "in timing-only mode";
  }
  return ok ? "" : error;
}

hetx::PlanBuffer *addPlanBuffer(hetx::KernelPlan &plan, hetx::DataType dtype,
                                std::vector<int64_t> shape) {
  hetx::PlanBuffer *buffer = plan.add_buffers();
  buffer->set_dtype(dtype);
  for (int64_t d : shape)
    buffer->add_shape(d);
  return buffer;
}

hetx::PlanKernel *addPlanKernel(hetx::KernelPlan &plan,
                                hetx::PlanKernelKind kind,
                                std::vector<uint32_t> operands, uint32_t result,
                                hetx::Opcode opcode) {
  hetx::PlanKernel *kernel = plan.add_kernels();
  kernel->set_kind(kind);
  kernel->set_node("node" + std::to_string(plan.kernels_size() - 1));
  for (uint32_t operand : operands)
    kernel->add_operands(operand);
  kernel->set_result(result);
  kernel->set_opcode(opcode);
  return kernel;
}

} // namespace hetc::test
