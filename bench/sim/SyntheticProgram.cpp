//===- SyntheticProgram.cpp - Large valid programs for the chip model --===//

#include "bench/sim/SyntheticProgram.h"

#include "runtime/artifact/ArtifactFile.h"

#include <algorithm>
#include <array>
#include <vector>

namespace hetc::bench {

namespace {
/// Vectors each input and output holds; reads and writes cycle over them.
constexpr uint64_t kSpan = 64;

/// One instruction of an iteration.
struct Stage {
  hetx::Opcode opcode;
  uint32_t unit;
  /// Issue cycle relative to the iteration's start.
  int64_t offset;
  /// MEM ops: the first address of the slice's binding.
  uint64_t base;
  /// Stages whose values the sources read, and the source streams.
  std::vector<std::pair<int, hetx::StreamRef>> sources;
  hetx::StreamRef dst;
  uint32_t node;
  /// The element type it works on (hetx.proto, Instruction.dtype).
  hetx::DataType dtype = hetx::F32;
};

hetx::StreamRef stream(uint32_t id, hetx::Direction dir) {
  hetx::StreamRef ref;
  ref.set_id(id);
  ref.set_dir(dir);
  return ref;
}

void bind(hetx::TensorBinding &binding, const std::string &name,
          uint64_t address, uint32_t lanes, hetx::DataType dtype = hetx::F32) {
  binding.set_name(name);
  binding.set_dtype(dtype);
  binding.add_shape(int64_t(kSpan));
  binding.add_shape(lanes);
  binding.set_address(address);
  binding.set_vectors_per_row(1);
}
} // namespace

bool buildSyntheticProgram(const chip::ChipSpec &chip, uint64_t instructions,
                           hetx::Artifact &artifact,
                           std::map<std::string, io::Tensor> &inputs,
                           std::string &error) {
  const chip::Chip &proto = chip.proto();
  uint32_t vector = chip.vectorPosition();
  std::vector<uint32_t> west, east;
  for (uint32_t s = 0; s < proto.memory().slices(); ++s)
    (chip.slicePosition(s) < vector ? west : east).push_back(s);
  // Nearest to the vector unit first.
  std::reverse(west.begin(), west.end());
  uint32_t firstPlane = 0, lastPlane = 0;
  for (uint32_t p = 1; p < proto.matrix().planes(); ++p) {
    if (chip.planePosition(p) < chip.planePosition(firstPlane))
      firstPlane = p;
    if (chip.planePosition(p) > chip.planePosition(lastPlane))
      lastPlane = p;
  }
  if (west.size() < 3 || east.size() < 3 || proto.matrix().planes() < 2 ||
      chip.planePosition(firstPlane) > chip.slicePosition(west[2]) ||
      chip.planePosition(lastPlane) < chip.slicePosition(east[2]) ||
      proto.streams().per_direction() < 16 || chip.runVectors() < kSpan) {
    error = "chip '" + chip.name() +
            "' lacks what the synthetic program needs: three MEM slices on "
            "each side of the vector unit, a matrix plane beyond them at "
            "each end, 16 streams per direction and runs of 64 consecutive "
            "addresses in a slice";
    return false;
  }
  uint32_t sliceA = west[0], sliceW = west[1], sliceL = west[2];
  uint32_t sliceB = east[0], sliceSum = east[1], sliceProduct = east[2];
  const chip::Latencies &lat = proto.latency();
  int64_t hop = proto.streams().hop_cycles();
  auto span = [&](uint32_t from, uint32_t to) {
    return int64_t(from < to ? to - from : from - to) * hop;
  };
  auto slicePos = [&](uint32_t s) { return chip.slicePosition(s); };
  uint32_t westPlane = chip.planePosition(firstPlane);
  uint32_t eastPlane = chip.planePosition(lastPlane);
  // The first address of slice s's first run: s runs in (with or
  // without interleaving).
  uint64_t perSlice = chip.runVectors();

  int64_t read = lat.mem_read();
  int64_t add = read + span(slicePos(sliceA), vector);
  int64_t multiply = read + span(slicePos(sliceW), westPlane);
  const hetx::Direction E = hetx::EAST, W = hetx::WEST;
  std::vector<Stage> stages = {
      {hetx::MEM_READ, sliceA, 0, sliceA * perSlice, {}, stream(0, E), 1},
      {hetx::MEM_READ,
       sliceB,
       add - read - span(slicePos(sliceB), vector),
       sliceB * perSlice,
       {},
       stream(0, W),
       1},
      {hetx::V_ADD,
       0,
       add,
       0,
       {{0, stream(0, E)}, {1, stream(0, W)}},
       stream(4, E),
       1},
      {hetx::MEM_WRITE,
       sliceSum,
       add + lat.vector_op() + span(vector, slicePos(sliceSum)),
       sliceSum * perSlice,
       {{2, stream(4, E)}},
       {},
       1},
      // The product of int8 inputs (int32 sums), which the published
      // chip multiplies at its full rate: a matmul every cycle.
      {hetx::MEM_READ,
       sliceW,
       0,
       sliceW * perSlice,
       {},
       stream(4, W),
       2,
       hetx::I8},
      {hetx::M_MATMUL,
       firstPlane,
       multiply,
       0,
       {{4, stream(4, W)}},
       stream(8, E),
       2,
       hetx::I8},
      {hetx::MEM_WRITE,
       sliceProduct,
       multiply + lat.matrix_mul() + span(westPlane, slicePos(sliceProduct)),
       sliceProduct * perSlice,
       {{5, stream(8, E)}},
       {},
       2,
       hetx::I32},
      {hetx::MEM_READ, sliceL, 0, sliceL * perSlice, {}, stream(12, E), 3},
      {hetx::M_LOAD_WEIGHTS,
       lastPlane,
       read + span(slicePos(sliceL), eastPlane),
       0,
       {{7, stream(12, E)}},
       {},
       3},
  };
  int64_t first = 0, last = 0;
  for (const Stage &stage : stages)
    first = std::min(first, stage.offset);
  for (Stage &stage : stages) {
    stage.offset -= first;
    last = std::max(last, stage.offset);
  }
  // Issue order within a cycle keeps producers before their readers, which
  // matters when a latency and a distance are both zero.
  std::vector<int> order(stages.size());
  for (size_t s = 0; s < order.size(); ++s)
    order[s] = int(s);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return stages[a].offset < stages[b].offset;
  });

  artifact.Clear();
  *artifact.mutable_chip() = artifact::identityOf(chip);
  artifact.set_producer("hetc-sim-bench synthetic program");
  for (const char *node : {"", "sum", "product", "weights"})
    artifact.add_nodes(node);
  uint32_t lanes = chip.lanes();
  inputs.clear();
  for (auto [name, slice] :
       {std::pair{"a", sliceA}, {"b", sliceB}, {"w", sliceW}, {"l", sliceL}}) {
    bool bytes = std::string(name) == "w";
    bind(*artifact.add_inputs(), name, slice * perSlice, lanes,
         bytes ? hetx::I8 : hetx::F32);
    io::Tensor &tensor = inputs[name];
    tensor.shape = {int64_t(kSpan), int64_t(lanes)};
    if (bytes) {
      tensor.type = io::ElementType::I8;
      tensor.ints.resize(kSpan * lanes);
      for (size_t i = 0; i < tensor.ints.size(); ++i)
        tensor.ints[i] = int64_t(i % 7) - 3;
      continue;
    }
    tensor.data.resize(kSpan * lanes);
    for (size_t i = 0; i < tensor.data.size(); ++i)
      tensor.data[i] = float(int(i % 7) - 3) * 0.25f;
  }
  bind(*artifact.add_outputs(), "sum", sliceSum * perSlice, lanes);
  bind(*artifact.add_outputs(), "product", sliceProduct * perSlice, lanes,
       hetx::I32);

  int64_t iterations =
      int64_t(std::max<uint64_t>(kSpan, instructions / kSyntheticStride));
  auto *list = artifact.mutable_instructions();
  list->Reserve(int(iterations * int64_t(stages.size()) + 2));
  // A prologue gives the western plane int8 weights (a row of `w`), which
  // its products need; the iterations start once they are installed.
  int64_t installed = read + span(slicePos(sliceW), westPlane);
  {
    hetx::Instruction &load = *list->Add();
    load.set_opcode(hetx::MEM_READ);
    load.set_unit(sliceW);
    load.set_address(sliceW * perSlice);
    load.set_dtype(hetx::I8);
    load.set_node(2);
    *load.mutable_dst() = stream(4, W);
    hetx::Instruction &install = *list->Add();
    install.set_cycle(uint64_t(installed));
    install.set_opcode(hetx::M_LOAD_WEIGHTS);
    install.set_unit(firstPlane);
    install.set_dtype(hetx::I8);
    install.set_node(2);
    hetx::StreamRef &src = *install.add_src();
    src = stream(4, W);
    src.set_producer(0);
  }
  int64_t start = installed + lat.matrix_load() + 1;
  // Where each stage of the iterations in flight landed, for the sources'
  // producer indices.
  size_t window = size_t(last) + 2;
  std::vector<std::array<uint32_t, kSyntheticStride>> placed(window);
  uint64_t cycles = 0;
  for (int64_t t = 0; t < iterations + last; ++t) {
    for (int s : order) {
      const Stage &stage = stages[s];
      int64_t i = t - stage.offset;
      if (i < 0 || i >= iterations)
        continue;
      placed[size_t(i) % window][s] = uint32_t(list->size());
      hetx::Instruction &instr = *list->Add();
      instr.set_cycle(uint64_t(start + t));
      instr.set_opcode(stage.opcode);
      instr.set_unit(stage.unit);
      instr.set_node(stage.node);
      if (stage.dtype != hetx::F32)
        instr.set_dtype(stage.dtype);
      if (stage.opcode == hetx::MEM_READ || stage.opcode == hetx::MEM_WRITE)
        instr.set_address(stage.base + uint64_t(i) % kSpan);
      if (stage.opcode == hetx::V_ADD)
        instr.set_lanes(lanes);
      if (stage.opcode == hetx::M_LOAD_WEIGHTS)
        instr.set_row(uint32_t(i % lanes));
      for (const auto &[from, ref] : stage.sources) {
        hetx::StreamRef &src = *instr.add_src();
        src = ref;
        src.set_producer(placed[size_t(i) % window][from]);
      }
      if (stage.opcode != hetx::MEM_WRITE &&
          stage.opcode != hetx::M_LOAD_WEIGHTS)
        *instr.mutable_dst() = stage.dst;
      uint32_t latency = stage.opcode == hetx::MEM_READ    ? lat.mem_read()
                         : stage.opcode == hetx::MEM_WRITE ? lat.mem_write()
                         : stage.opcode == hetx::V_ADD     ? lat.vector_op()
                         : stage.opcode == hetx::M_MATMUL  ? lat.matrix_mul()
                                                           : lat.matrix_load();
      cycles = std::max(cycles, uint64_t(start + t) + latency);
    }
  }
  artifact.set_predicted_cycles(cycles);
  return true;
}

} // namespace hetc::bench
