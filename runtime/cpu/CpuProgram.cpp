//===- CpuProgram.cpp - Running a checked kernel plan on the host ------===//

#include "runtime/cpu/CpuConvolution.h"
#include "runtime/cpu/CpuKernels.h"
#include "runtime/cpu/CpuSteps.h"
#include "runtime/plan/Placement.h"

#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Sram.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace hetc::cpu {

/// Where a program's buffers live (see CpuProgram).
struct CpuArena {
  plan::Placement placement;
  std::vector<float> words;
  /// Room for the result of a kernel that reads what it overwrites.
  std::vector<float> scratch;
  /// The copies left out, and the kernels as the host runs them.
  Aliases aliases;
  std::vector<Step> steps;
  /// Per thread: the slots and spread rows of Elementwise steps.
  std::vector<std::vector<float>> blockRooms;
  /// Per kernel: its convolution made ready (PLAN_CONV), or null; and the
  /// room they share for maps and results in oneDNN's layouts.
  std::vector<std::unique_ptr<Convolution>> convolutions;
  std::vector<float> convolutionRoom;
  /// The room's first 64-byte line.
  void *room() {
    auto at = reinterpret_cast<uintptr_t>(convolutionRoom.data());
    return reinterpret_cast<void *>((at + 63) / 64 * 64);
  }
};

namespace {
/// Buffers start on 64-byte lines, as the vector routines prefer.
constexpr uint64_t kAlignWords = 16;
/// The most elements of an Elementwise step's block: the blocks of its
/// kernels' operands and results fit a core's level-2 cache.
constexpr uint64_t kBlock = 4096;

int threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int thread() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/// Blocks of at most kBlock elements over a result of `rows` rows of `row`:
/// pieces of a row, or runs of whole rows.
struct Blocks {
  Blocks(uint64_t rows, uint64_t row) : rows(rows), row(row) {
    if (row >= kBlock) {
      piecesPerRow = (row + kBlock - 1) / kBlock;
      count = rows * piecesPerRow;
    } else if (row > 0) {
      rowsPerBlock = kBlock / row;
      count = (rows + rowsPerBlock - 1) / rowsPerBlock;
    }
  }
  /// Block `b`'s elements, [begin, end).
  std::pair<uint64_t, uint64_t> operator[](uint64_t b) const {
    if (piecesPerRow) {
      uint64_t r = b / piecesPerRow, from = (b % piecesPerRow) * kBlock;
      return {r * row + from, r * row + std::min(row, from + kBlock)};
    }
    uint64_t first = b * rowsPerBlock;
    return {first * row, std::min(rows, first + rowsPerBlock) * row};
  }
  uint64_t rows, row, count = 0, piecesPerRow = 0, rowsPerBlock = 0;
};
} // namespace

CpuProgram::CpuProgram() = default;
CpuProgram::~CpuProgram() = default;
CpuProgram::CpuProgram(CpuProgram &&) noexcept = default;
CpuProgram &CpuProgram::operator=(CpuProgram &&) noexcept = default;

size_t CpuProgram::kernels() const { return state ? state->kernels.size() : 0; }

uint64_t CpuProgram::constantBytes() const {
  return state ? state->constantBytes : 0;
}

std::string CpuProgram::kernelLabel(size_t i) const {
  return plan::kernelLabel(*state, i);
}

bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
          CpuProgram &program, std::string &error) {
  program.arena.reset();
  program.state = plan::load(artifact, chip, error);
  if (!program.state)
    return false;
  // plan::load has bounded the buffers live at once by the chip's SRAM,
  // and with it the arena (the steps may take up to twice that).
  auto arena = std::make_unique<CpuArena>();
  const Plan &state = *program.state;
  SteppedPlan stepped = stepPlan(state, kAlignWords);
  arena->aliases = std::move(stepped.aliases);
  arena->placement = std::move(stepped.placement);
  arena->steps = std::move(stepped.steps);
  arena->words.assign(std::max<uint64_t>(arena->placement.words, 1), 0.0f);
  uint64_t scratch = 0;
  for (const PlanKernelInfo &kernel : program.state->kernels)
    if (kernel.aliased)
      scratch = std::max(
          scratch,
          program.state->buffers[program.state->buffers[kernel.result].root]
              .elements);
  arena->scratch.assign(std::max<uint64_t>(scratch, 1), 0.0f);
  uint32_t slots = 0;
  for (const Step &step : arena->steps)
    slots = std::max(slots, step.slots);
  arena->blockRooms.assign(size_t(threads()),
                           std::vector<float>((slots + 3) * kBlock));
  arena->convolutions.resize(state.kernels.size());
  uint64_t roomBytes = 0;
  for (size_t i = 0; i < state.kernels.size(); ++i)
    if (state.kernels[i].kind == hetx::PLAN_CONV) {
      arena->convolutions[i] =
          Convolution::make(state, state.kernels[i], error);
      if (!arena->convolutions[i])
        return false;
      roomBytes = std::max(roomBytes, arena->convolutions[i]->roomBytes());
    }
  // A map and a result in oneDNN's layouts, which pads channels to its
  // blocks: bounded by the plan's buffers (themselves bounded by the
  // chip) times the padding.
  arena->convolutionRoom.assign(roomBytes / sizeof(float) + 16, 0.0f);
  program.arena = std::move(arena);
  return true;
}

namespace {

/// Runs an Elementwise step: its kernels' operands and results prepared
/// by `prepare` (into `operands`), then each block through every kernel,
/// the blocks spread over the threads.
template <typename Prepare>
void runElementwise(const Plan &state, const Step &step, CpuArena &arena,
                    std::vector<std::vector<const float *>> &operands,
                    Prepare prepare) {
  operands.resize(std::max<size_t>(operands.size(), step.count));
  std::vector<float *> outs(step.count);
  std::vector<Broadcast> broadcasts;
  std::vector<std::vector<bool>> held(step.count);
  for (size_t j = 0; j < step.count; ++j) {
    const PlanKernelInfo &kernel = state.kernels[step.first + j];
    outs[j] = prepare(step.first + j, operands[j]);
    // Binary and select kernels broadcast their operands; the others read
    // theirs in order (gathers by their runs).
    bool broadcasting =
        kernel.kind == hetx::PLAN_BINARY || kernel.kind == hetx::PLAN_SELECT;
    std::vector<const PlanBufferInfo *> infos;
    for (size_t o = 0; o < kernel.operands.size(); ++o) {
      if (broadcasting)
        infos.push_back(&state.buffers[kernel.operands[o]]);
      held[j].push_back(step.operandSlots[j][o] >= 0);
    }
    broadcasts.emplace_back(state.buffers[kernel.result].shape, infos);
  }
  const PlanBufferInfo &result =
      state.buffers[state.kernels[step.first].result];
  Blocks blocks(result.rows(), result.rowLength());
  if (arena.blockRooms.size() < size_t(threads()))
    arena.blockRooms.resize(size_t(threads()), arena.blockRooms.front());
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic) if (blocks.count > 1)
#endif
  for (int64_t b = 0; b < int64_t(blocks.count); ++b) {
    auto [begin, end] = blocks[uint64_t(b)];
    float *room = arena.blockRooms[size_t(thread())].data();
    float *spreadRoom = room + step.slots * kBlock;
    std::vector<const float *> in;
    for (size_t j = 0; j < step.count; ++j) {
      in.clear();
      for (size_t o = 0; o < operands[j].size(); ++o) {
        int slot = step.operandSlots[j][o];
        in.push_back(slot >= 0 ? room + uint64_t(slot) * kBlock
                               : operands[j][o]);
      }
      int slot = step.resultSlots[j];
      float *out = slot >= 0 ? room + uint64_t(slot) * kBlock : outs[j] + begin;
      runBlock(state.kernels[step.first + j], broadcasts[j], in, held[j], out,
               begin, end, spreadRoom);
    }
  }
}

} // namespace

bool run(const CpuProgram &program,
         const std::map<std::string, io::Tensor> &inputs, CpuResult &result,
         std::string &error) {
  const Plan &state = *program.state;
  CpuArena &arena = *program.arena;
  if (!sim::checkInputs(state.artifact, inputs, error))
    return false;
  result = CpuResult();
  auto start = std::chrono::steady_clock::now();
  // Where buffer `index` starts: in the place of the root that holds its
  // elements.
  auto base = [&](uint32_t index) -> float * {
    const PlanBufferInfo &b = state.buffers[index];
    if (b.constant)
      return const_cast<float *>(b.constant->data());
    uint32_t holder = arena.aliases.holder[b.root];
    uint64_t offset = arena.aliases.offset[b.root];
    const PlanBufferInfo &h = state.buffers[holder];
    return h.constant
               ? const_cast<float *>(h.constant->data()) + offset
               : arena.words.data() + arena.placement.offset[holder] + offset;
  };
  // Roots written so far in this run: the first kernel to write one that
  // does not write it whole finds zeros there, whatever the last run left.
  std::vector<bool> written(state.buffers.size(), false);
  std::vector<float> converted;
  for (size_t i = 0; i < state.buffers.size(); ++i) {
    const PlanBufferInfo &b = state.buffers[i];
    if (b.origin != PlanBufferInfo::Origin::Input)
      continue;
    const io::Tensor &tensor = inputs.at(state.artifact.inputs(b.input).name());
    const float *words = sim::laneWords(tensor, converted);
    std::copy(words, words + b.elements, base(uint32_t(i)));
    written[arena.aliases.holder[b.root]] = true;
  }
  // Kernel i's operands as runKernel takes them, and its result's
  // storage, zeroed first where the kernel is the first to write it and
  // does not write it whole.
  std::vector<std::vector<const float *>> operands(1);
  auto prepare = [&](size_t i, std::vector<const float *> &in) {
    const PlanKernelInfo &kernel = state.kernels[i];
    in.clear();
    for (uint32_t operand : kernel.operands)
      in.push_back(base(operand));
    if (kernel.bias >= 0)
      in.push_back(base(uint32_t(kernel.bias)));
    if (kernel.scale >= 0)
      in.push_back(base(uint32_t(kernel.scale)));
    uint32_t root = state.buffers[kernel.result].root;
    uint32_t holder = arena.aliases.holder[root];
    if (!written[holder] && !(kernel.fills && holder == root))
      std::memset(base(holder), 0,
                  state.buffers[holder].elements * sizeof(float));
    written[holder] = true;
    return base(root);
  };
  result.stats.kernelSeconds.assign(state.kernels.size(), 0.0);
  for (const Step &step : arena.steps) {
    auto stepStart = std::chrono::steady_clock::now();
    if (step.kind == Step::Kind::LeftOut) {
      // A copy left out: its result is a view, or its source was written
      // in its place; it takes no time.
    } else if (step.kind == Step::Kind::WindowProducts) {
      // Pairs of a gather (not run: its windows are read from its
      // operands) and its product, spread over the threads.
      size_t pairs = step.count / 2;
      operands.resize(std::max<size_t>(operands.size(), step.count));
      std::vector<float *> outs(pairs);
      for (size_t p = 0; p < pairs; ++p) {
        size_t g = step.first + 2 * p;
        prepare(g, operands[2 * p]);
        outs[p] = prepare(g + 1, operands[2 * p + 1]);
      }
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic) if (pairs > 1)
#endif
      for (int64_t p = 0; p < int64_t(pairs); ++p) {
        size_t g = step.first + 2 * size_t(p);
        runWindowProduct(state, state.kernels[g], state.kernels[g + 1],
                         step.windows[size_t(p)], operands[2 * p],
                         operands[2 * p + 1], outs[p]);
      }
    } else if (step.kind == Step::Kind::Elementwise) {
      runElementwise(state, step, arena, operands, prepare);
    } else {
      const PlanKernelInfo &kernel = state.kernels[step.first];
      float *out = prepare(step.first, operands[0]);
      uint64_t elements =
          state.buffers[state.buffers[kernel.result].root].elements;
      Convolution *convolution = arena.convolutions[step.first].get();
      auto runInto = [&](float *to) {
        return convolution
                   ? convolution->run(operands[0], to, arena.room(), error)
                   : runKernel(state, kernel, operands[0], to, error);
      };
      bool ok;
      if (kernel.aliased) {
        // The kernel reads what it overwrites: it writes a copy, which
        // then takes the result's place.
        std::copy(out, out + elements, arena.scratch.data());
        ok = runInto(arena.scratch.data());
        std::copy(arena.scratch.data(), arena.scratch.data() + elements, out);
      } else {
        ok = runInto(out);
      }
      if (!ok)
        return false;
    }
    result.stats.kernels += step.count;
    if (step.kind == Step::Kind::LeftOut)
      continue;
    // A step's time is shared by the kernels it runs, evenly, but for the
    // gathers a window product does not run.
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - stepStart)
                         .count();
    bool pairs = step.kind == Step::Kind::WindowProducts;
    size_t shares = pairs ? step.count / 2 : step.count;
    for (size_t k = step.first + (pairs ? 1 : 0); k < step.first + step.count;
         k += pairs ? 2 : 1)
      result.stats.kernelSeconds[k] = seconds / double(shares);
  }
  auto end = std::chrono::steady_clock::now();
  result.stats.seconds = std::chrono::duration<double>(end - start).count();
  result.stats.peakBytes =
      (arena.placement.words + arena.convolutionRoom.size()) * sizeof(float);
  for (size_t i = 0; i < state.outputs.size(); ++i) {
    const hetx::TensorBinding &binding = state.artifact.outputs(int(i));
    const PlanBufferInfo &b = state.buffers[state.outputs[i]];
    sim::NamedTensor output{binding.name(), {}};
    io::Tensor &tensor = output.tensor;
    tensor.type = *sim::elementTypeOf(binding.dtype());
    tensor.shape.assign(binding.shape().begin(), binding.shape().end());
    const float *words = base(state.outputs[i]);
    tensor.data.assign(words, words + b.elements);
    sim::keepLaneWords(tensor);
    result.outputs.push_back(std::move(output));
  }
  return true;
}

} // namespace hetc::cpu
