//===- CudaProgram.cpp - Loading and running a kernel plan on a GPU ----===//
//
// Host side of the CUDA backend: everything a run launches is derived at
// load (device pointers, broadcast strides, gather runs, lane operations),
// so that a run is copies in, one launch per kernel on one stream, copies
// out.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaBackend.h"

#include "runtime/cuda/CudaKernels.h"
#include "runtime/plan/Placement.h"
#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Sram.h"
#include "runtime/sim/VectorUnit.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <limits>

namespace hetc::cuda {

namespace {

using plan::PlanBufferInfo;
using plan::PlanKernelInfo;

bool ok(cudaError_t status, const char *call, std::string &error) {
  if (status == cudaSuccess)
    return true;
  error = std::string("CUDA: ") + call + ": " + cudaGetErrorString(status);
  return false;
}

bool ok(cublasStatus_t status, const char *call, std::string &error) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  error = std::string("cuBLAS: ") + call + ": " + cublasGetStatusString(status);
  return false;
}

/// Device memory, freed with its owner.
class DeviceMemory {
public:
  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;
  ~DeviceMemory() {
    if (pointer)
      cudaFree(pointer);
  }
  bool allocate(uint64_t bytes, const char *what, std::string &error) {
    if (cudaMalloc(&pointer, std::max<uint64_t>(bytes, 1)) == cudaSuccess)
      return true;
    pointer = nullptr;
    cudaGetLastError(); // clears the failure
    error = std::string("CUDA: no room on the device for ") + what + " (" +
            std::to_string(bytes) + " bytes)";
    return false;
  }
  template <typename T> T *as() const { return static_cast<T *>(pointer); }

private:
  void *pointer = nullptr;
};

/// Elements are placed at multiples of this many words (256 bytes), the
/// alignment cuBLAS likes best.
constexpr uint64_t kAlignWords = 64;

uint64_t aligned(uint64_t words) {
  return (words + kAlignWords - 1) / kAlignWords * kAlignWords;
}

/// What a run launches for one kernel, derived at load.
struct Launch {
  const PlanKernelInfo *info = nullptr;
  std::vector<const float *> operands;
  /// The result's storage (its root's) and its size in words.
  float *result = nullptr;
  uint64_t resultWords = 0;
  /// Whether the kernel is the first to write its result's storage and
  /// does not write all of it: the rest starts as zeros.
  bool zeroFirst = false;
  LaneOp op;
  bool broadcast = false;
  Strides strides;
  /// PLAN_MATMUL.
  const float *weight = nullptr, *bias = nullptr, *scale = nullptr;
  bool convertWeight = false, hasBiasCast = false, hasActivation = false,
       hasCast = false;
  LaneOp mul, add, biasCast, activation, cast;
  /// PLAN_GATHER: runs and operand pointers, on the device.
  const DeviceRun *runs = nullptr;
  const float *const *operandTable = nullptr;
  uint64_t longestRun = 0;
  /// PLAN_DEPTHWISE_CONV.
  DepthwiseWindow window;
  /// PLAN_DEPTHWISE_CONV_CF (its columns are in operandTable).
  ChannelsFirstWindow cfWindow;
  /// PLAN_CONV (its groups' weights are in operandTable).
  ConvWindow convWindow;
  /// PLAN_GATHER_ROWS, PLAN_SCATTER_ROWS: the table's rows, their length,
  /// the indices, and this kernel's slot of bad indices.
  uint64_t tableRows = 0, row = 0, indices = 0;
  int badSlot = -1;
};

/// The kernel elements (columns) of a channels-first depthwise window.
size_t taps(const ChannelsFirstWindow &window) {
  const int64_t *k = window.window.kernel;
  return size_t(k[0] * k[1] * k[2]);
}

LaneOp::Round roundOf(io::ElementType type) {
  return type == io::ElementType::F16    ? LaneOp::Half
         : type == io::ElementType::BF16 ? LaneOp::BFloat
                                         : LaneOp::None;
}

/// The lane operation of `op` (as sim::computeVector picks its routine),
/// or false with `why` where the device kernels do not compute it.
bool laneOpOf(const sim::Op &op, LaneOp &lane, std::string &why) {
  lane = LaneOp();
  lane.opcode = int32_t(op.opcode);
  if (io::isNarrowFloat(op.outType)) {
    why = "it gives " + io::typeName(op.outType) +
          ", which the device kernels do not round to";
    return false;
  }
  lane.round = roundOf(op.outType);
  // The routine the chip model computes the lanes with (sim::computeVector).
  lane.kind = sim::laneRoutineOf(op);
  switch (lane.kind) {
  case sim::LaneRoutine::FloatReduce:
  case sim::LaneRoutine::IntReduce:
  case sim::LaneRoutine::Broadcast:
  case sim::LaneRoutine::None:
    why = "opcode " + std::to_string(int(op.opcode)) +
          " is not an elementwise operation of the vector unit";
    return false;
  case sim::LaneRoutine::Cast:
    lane.fromFloat = io::isFloat(op.inType);
    lane.toFloat = io::isFloat(op.outType);
    if (!lane.toFloat) {
      lane.toBool = op.outType == io::ElementType::Bool;
      lane.wrap = op.overflow == io::Overflow::Wrap;
      lane.lo = io::clampTo(op.outType, std::numeric_limits<int64_t>::min());
      lane.hi = io::clampTo(op.outType, std::numeric_limits<int64_t>::max());
      lane.isSigned = lane.lo < 0;
      // io::wrapTo keeps 32 bits of the types held in full in int32 lanes
      // (I32, U32, I64, U64), and the type's width of the others.
      lane.bits = 32;
      if (lane.hi != INT32_MAX)
        for (lane.bits = 1; (int64_t(1) << lane.bits) < lane.hi - lane.lo + 1;)
          ++lane.bits;
    }
    return true;
  default:
    return true;
  }
}

/// `map` collapsed into `strides` (the first `operands` of it); false
/// where more than kMaxRank dimensions remain.
bool fill(Strides &strides, const plan::IndexMap &map) {
  plan::IndexMap collapsed = plan::collapse(map);
  strides.rank = int32_t(collapsed.shape.size());
  if (collapsed.shape.size() > size_t(kMaxRank))
    return false;
  for (size_t d = 0; d < collapsed.shape.size(); ++d) {
    strides.shape[d] = collapsed.shape[d];
    for (size_t o = 0; o < collapsed.strides.size(); ++o)
      strides.operand[o][d] = collapsed.strides[o][d];
  }
  return true;
}

} // namespace

struct CudaProgram::State {
  ~State() {
    for (cudaEvent_t event : events)
      cudaEventDestroy(event);
    if (blas)
      cublasDestroy(blas);
    if (stream)
      cudaStreamDestroy(stream);
  }
  std::unique_ptr<plan::Plan> plan;
  int device = 0;
  std::string deviceName;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::vector<cudaEvent_t> events;
  DeviceMemory constants, arena, scratch, runs, tables, badIndices, lastWriter;
  uint64_t constantBytes = 0, arenaBytes = 0;
  /// Per plan buffer: its first element on the device.
  std::vector<float *> base;
  std::vector<Launch> launches;
  /// Per bad-index slot: the count of indices (the value meaning "none").
  std::vector<uint64_t> badInitial;
  float *scratchTemp = nullptr, *scratchAcc = nullptr, *scratchWeight = nullptr;
  /// An output kept on the device as the next run's input (carry()).
  struct Carried {
    int input = -1, output = -1;
    uint64_t elements = 0;
    DeviceMemory held;
    /// Whether a run has left its value in `held`.
    bool valid = false;
  };
  std::vector<std::unique_ptr<Carried>> carried;
  /// The carried value an input or output takes part in, if any.
  Carried *carriedInput(int input) const {
    for (const auto &c : carried)
      if (c->input == input)
        return c.get();
    return nullptr;
  }
  Carried *carriedOutput(int output) const {
    for (const auto &c : carried)
      if (c->output == output)
        return c.get();
    return nullptr;
  }
};

CudaProgram::CudaProgram() = default;
CudaProgram::~CudaProgram() = default;
CudaProgram::CudaProgram(CudaProgram &&) noexcept = default;
CudaProgram &CudaProgram::operator=(CudaProgram &&) noexcept = default;

size_t CudaProgram::kernels() const {
  return state ? state->plan->kernels.size() : 0;
}

uint64_t CudaProgram::constantBytes() const {
  return state ? state->constantBytes : 0;
}

std::string CudaProgram::kernelLabel(size_t i) const {
  return plan::kernelLabel(*state->plan, i);
}

std::string CudaProgram::device() const {
  return state ? state->deviceName + " (device " +
                     std::to_string(state->device) + ")"
               : std::string();
}

bool built(std::string &architectures) {
  architectures = HETC_CUDA_ARCHITECTURES;
  return true;
}

bool available(std::string &why) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    why = std::string("no CUDA device to run on (CUDA: ") +
          (status == cudaSuccess ? "the driver finds no GPU"
                                 : cudaGetErrorString(status)) +
          "); --backend cpu runs the same kernel plan on the host";
    cudaGetLastError();
    return false;
  }
  return true;
}

namespace {

/// Builds a State from a checked plan.
class Loader {
public:
  Loader(CudaProgram::State &state, std::string &error)
      : state(state), plan(*state.plan), error(error) {}

  bool load() {
    return openDevice() && uploadConstants() && placeBuffers() &&
           deriveLaunches() && allocateScratch();
  }

private:
  bool fail(const PlanKernelInfo &kernel, const std::string &why) {
    error = "the CUDA backend cannot run " + kernel.label + ": " + why +
            "; run it with --backend cpu";
    return false;
  }

  /// A cuBLAS handle; on failure none, so that nothing destroys it.
  bool createBlas(std::string &error) {
    if (ok(cublasCreate(&state.blas), "cublasCreate", error))
      return true;
    state.blas = nullptr;
    return false;
  }

  bool openDevice() {
    std::string why;
    if (!available(why)) {
      error = why;
      return false;
    }
    cudaDeviceProp properties;
    if (!ok(cudaGetDevice(&state.device), "cudaGetDevice", error) ||
        !ok(cudaGetDeviceProperties(&properties, state.device),
            "cudaGetDeviceProperties", error) ||
        !ok(cudaStreamCreate(&state.stream), "cudaStreamCreate", error) ||
        !createBlas(error) ||
        !ok(cublasSetStream(state.blas, state.stream), "cublasSetStream",
            error) ||
        // fp32 products in fp32: no TF32.
        !ok(cublasSetMathMode(state.blas, CUBLAS_DEFAULT_MATH),
            "cublasSetMathMode", error))
      return false;
    state.deviceName = properties.name;
    state.events.resize(plan.kernels.size() + 1);
    for (cudaEvent_t &event : state.events)
      if (!ok(cudaEventCreate(&event), "cudaEventCreate", error))
        return false;
    return true;
  }

  bool uploadConstants() {
    // Constants, and the float copies of integer weights, in one block.
    std::vector<std::pair<const std::vector<float> *, uint64_t>> at;
    uint64_t words = 0;
    auto add = [&](const std::vector<float> &values) {
      at.emplace_back(&values, words);
      words += aligned(values.size());
    };
    for (const std::vector<float> &constant : plan.constants)
      add(constant);
    for (const PlanKernelInfo &kernel : plan.kernels)
      if (!kernel.floatWeight.empty())
        add(kernel.floatWeight);
    state.constantBytes = words * sizeof(float);
    if (!state.constants.allocate(state.constantBytes, "the constants", error))
      return false;
    for (const auto &[values, offset] : at) {
      float *to = state.constants.as<float>() + offset;
      devicePlace[values] = to;
      if (!ok(cudaMemcpy(to, values->data(), values->size() * sizeof(float),
                         cudaMemcpyHostToDevice),
              "cudaMemcpy (constants)", error))
        return false;
    }
    return true;
  }

  /// Places every buffer in the arena (plan::placeBuffers): buffers whose
  /// lives overlap do not share words.
  bool placeBuffers() {
    plan::Placement placement = plan::placeBuffers(plan, kAlignWords);
    state.arenaBytes = placement.words * sizeof(float);
    if (!state.arena.allocate(state.arenaBytes, "the buffers", error))
      return false;
    state.base.resize(plan.buffers.size());
    for (size_t i = 0; i < plan.buffers.size(); ++i) {
      const PlanBufferInfo &b = plan.buffers[i];
      state.base[i] = b.constant
                          ? devicePlace.at(b.constant)
                          : state.arena.as<float>() + placement.offset[i];
    }
    return true;
  }

  bool deriveLaunches() {
    std::vector<bool> written(plan.buffers.size(), false);
    for (size_t i = 0; i < plan.buffers.size(); ++i)
      written[i] = plan.buffers[i].origin == PlanBufferInfo::Origin::Input;
    for (const PlanKernelInfo &kernel : plan.kernels) {
      Launch launch;
      launch.info = &kernel;
      for (uint32_t operand : kernel.operands)
        launch.operands.push_back(state.base[operand]);
      uint32_t root = plan.buffers[kernel.result].root;
      launch.result = state.base[root];
      launch.resultWords = plan.buffers[root].elements;
      launch.zeroFirst = !written[root] && !kernel.fills;
      written[root] = true;
      if (kernel.aliased)
        tempWords = std::max(tempWords, launch.resultWords);
      if (!derive(kernel, launch))
        return false;
      state.launches.push_back(std::move(launch));
    }
    return true;
  }

  bool derive(const PlanKernelInfo &kernel, Launch &launch) {
    std::string why;
    const PlanBufferInfo &out = plan.buffers[kernel.result];
    switch (kernel.kind) {
    case hetx::PLAN_BINARY:
    case hetx::PLAN_SELECT:
    case hetx::PLAN_UNARY:
    case hetx::PLAN_CAST: {
      // A select moves lane words of any type.
      if (kernel.kind == hetx::PLAN_SELECT)
        launch.op.kind = sim::LaneRoutine::Select;
      else if (!laneOpOf(kernel.op, launch.op, why))
        return fail(kernel, why);
      plan::IndexMap map{out.shape, {}};
      for (uint32_t operand : kernel.operands) {
        launch.broadcast |= plan.buffers[operand].shape != out.shape;
        map.strides.push_back(
            plan::broadcastStrides(plan.buffers[operand].shape, out.shape));
      }
      if (launch.broadcast && !fill(launch.strides, map))
        return fail(kernel, "it broadcasts over " +
                                std::to_string(launch.strides.rank) +
                                " dimensions, more than " +
                                std::to_string(kMaxRank));
      return true;
    }
    case hetx::PLAN_SOFTMAX:
    case hetx::PLAN_REDUCE:
      if (io::isNarrowFloat(kernel.op.inType))
        return fail(kernel, "it computes in " + io::typeName(kernel.op.inType) +
                                ", which the device kernels do not round to");
      return true;
    case hetx::PLAN_TRANSPOSE: {
      const PlanBufferInfo &in = plan.buffers[kernel.operands[0]];
      size_t rank = in.shape.size();
      std::vector<int64_t> inStride(rank, 1), stride(rank);
      for (size_t d = rank; d-- > 1;)
        inStride[d - 1] = inStride[d] * in.shape[d];
      for (size_t d = 0; d < rank; ++d)
        stride[d] = inStride[size_t(kernel.perm[d])];
      if (!fill(launch.strides, {out.shape, {stride}}))
        return fail(kernel,
                    "it permutes " + std::to_string(launch.strides.rank) +
                        " dimensions, more than " + std::to_string(kMaxRank));
      return true;
    }
    case hetx::PLAN_DEPTHWISE_CONV: {
      const std::vector<int64_t> &in = plan.buffers[kernel.operands[0]].shape;
      const std::vector<int64_t> &w = plan.buffers[kernel.operands[1]].shape;
      DepthwiseWindow &window = launch.window;
      window.height = in[0];
      window.width = in[1];
      window.channels = in[2];
      window.outHeight = out.shape[0];
      window.outWidth = out.shape[1];
      window.kernelHeight = w[0];
      window.kernelWidth = w[1];
      for (int d = 0; d < 2; ++d) {
        window.strides[d] = kernel.strides[size_t(d)];
        window.pads[d] = kernel.pads[size_t(d)];
        window.dilations[d] = kernel.dilations[size_t(d)];
      }
      return true;
    }
    case hetx::PLAN_DEPTHWISE_CONV_CF: {
      ChannelsFirstWindow &window = launch.cfWindow;
      window.channels = kernel.inputShape[1];
      window.planes = kernel.inputShape[0] * window.channels;
      window.window = kernel.window;
      // The columns, after the input (the bias, when there is one, is
      // the last operand).
      for (size_t t = 1; t <= taps(window); ++t)
        operandTable.push_back(launch.operands[t]);
      return true;
    }
    case hetx::PLAN_CONV: {
      ConvWindow &window = launch.convWindow;
      window.images = kernel.inputShape[0];
      window.channels = kernel.inputShape[1];
      window.outChannels = int64_t(kernel.m);
      window.groups = int64_t(kernel.operands.size() - 1);
      window.withBias = kernel.withBias;
      window.window = kernel.window;
      // The groups' weights, after the input.
      for (size_t g = 1; g < kernel.operands.size(); ++g)
        operandTable.push_back(launch.operands[g]);
      return true;
    }
    case hetx::PLAN_GATHER:
      for (const plan::IndexRun &run : kernel.runs) {
        DeviceRun d;
        d.first = run.first;
        d.step = run.step;
        d.count = run.count;
        d.offset = run.offset + kernel.firstElement;
        d.operand = run.operand;
        gatherRuns.push_back(d);
        launch.longestRun = std::max(launch.longestRun, run.count);
      }
      for (const float *operand : launch.operands)
        operandTable.push_back(operand);
      return true;
    case hetx::PLAN_GATHER_ROWS:
    case hetx::PLAN_SCATTER_ROWS: {
      bool gather = kernel.kind == hetx::PLAN_GATHER_ROWS;
      const PlanBufferInfo &table =
          plan.buffers[gather ? kernel.operands[0] : kernel.result];
      launch.tableRows = uint64_t(table.shape[0]);
      launch.row = launch.tableRows ? table.elements / launch.tableRows : 0;
      launch.indices = plan.buffers[kernel.operands[1]].elements;
      launch.badSlot = int(state.badInitial.size());
      state.badInitial.push_back(launch.indices << 32);
      if (!gather)
        lastWriterRows = std::max(lastWriterRows, launch.tableRows);
      return true;
    }
    case hetx::PLAN_MATMUL:
      return deriveMatmul(kernel, launch);
    default:
      return fail(kernel, "not a kernel kind");
    }
  }

  bool deriveMatmul(const PlanKernelInfo &kernel, Launch &launch) {
    if (kernel.m > uint64_t(INT_MAX) || kernel.n > uint64_t(INT_MAX) ||
        kernel.k > uint64_t(INT_MAX))
      return fail(kernel, "its dimensions exceed cuBLAS's int");
    std::string why;
    bool isFloat = io::isFloat(kernel.op.inType);
    io::ElementType acc = isFloat ? io::ElementType::F32 : io::ElementType::I32;
    const PlanBufferInfo &w = plan.buffers[kernel.operands[1]];
    launch.weight = state.base[kernel.operands[1]];
    if (!kernel.floatWeight.empty())
      launch.weight = devicePlace.at(&kernel.floatWeight);
    else if (isFloat && !io::isFloat(w.type))
      launch.convertWeight = true;
    if (launch.convertWeight)
      weightWords = std::max(weightWords, kernel.k * kernel.n);
    if (kernel.bias >= 0) {
      launch.bias = state.base[uint32_t(kernel.bias)];
      io::ElementType type = plan.buffers[uint32_t(kernel.bias)].type;
      if (type != acc) {
        launch.hasBiasCast = true;
        if (!laneOpOf(sim::vectorOp(hetx::V_CAST, type, acc), launch.biasCast,
                      why))
          return fail(kernel, why);
      }
    }
    if (kernel.scale >= 0)
      launch.scale = state.base[uint32_t(kernel.scale)];
    if (!laneOpOf(sim::vectorOp(hetx::V_MUL, acc, acc), launch.mul, why) ||
        !laneOpOf(sim::vectorOp(hetx::V_ADD, acc, acc), launch.add, why))
      return fail(kernel, why);
    if (kernel.activation != hetx::OPCODE_UNSPECIFIED) {
      launch.hasActivation = true;
      if (!laneOpOf(sim::vectorOp(kernel.activation, acc, acc),
                    launch.activation, why))
        return fail(kernel, why);
    }
    if (kernel.op.outType != acc) {
      launch.hasCast = true;
      accWords = std::max(accWords, kernel.m * kernel.n);
      if (!laneOpOf(sim::vectorOp(hetx::V_CAST, acc, kernel.op.outType),
                    launch.cast, why))
        return fail(kernel, why);
    }
    return true;
  }

  bool allocateScratch() {
    uint64_t words =
        aligned(tempWords) + aligned(accWords) + aligned(weightWords);
    if (!state.scratch.allocate(words * sizeof(float), "scratch", error))
      return false;
    state.scratchTemp = state.scratch.as<float>();
    state.scratchAcc = state.scratchTemp + aligned(tempWords);
    state.scratchWeight = state.scratchAcc + aligned(accWords);
    if (!state.runs.allocate(gatherRuns.size() * sizeof(DeviceRun),
                             "gather runs", error) ||
        !state.tables.allocate(operandTable.size() * sizeof(float *),
                               "gather operands", error) ||
        !state.badIndices.allocate(state.badInitial.size() * sizeof(uint64_t),
                                   "index checks", error) ||
        !state.lastWriter.allocate(lastWriterRows * sizeof(int64_t),
                                   "scatter rows", error))
      return false;
    if (!gatherRuns.empty() &&
        !ok(cudaMemcpy(state.runs.as<DeviceRun>(), gatherRuns.data(),
                       gatherRuns.size() * sizeof(DeviceRun),
                       cudaMemcpyHostToDevice),
            "cudaMemcpy (gather runs)", error))
      return false;
    if (!operandTable.empty() &&
        !ok(cudaMemcpy(state.tables.as<const float *>(), operandTable.data(),
                       operandTable.size() * sizeof(float *),
                       cudaMemcpyHostToDevice),
            "cudaMemcpy (gather operands)", error))
      return false;
    // Each gather's runs and operand pointers, each channels-first
    // depthwise convolution's columns and each convolution's weights, in
    // kernel order.
    size_t runAt = 0, tableAt = 0;
    for (Launch &launch : state.launches) {
      if (launch.info->kind == hetx::PLAN_DEPTHWISE_CONV_CF) {
        launch.operandTable = state.tables.as<const float *>() + tableAt;
        tableAt += taps(launch.cfWindow);
        continue;
      }
      if (launch.info->kind == hetx::PLAN_CONV) {
        launch.operandTable = state.tables.as<const float *>() + tableAt;
        tableAt += size_t(launch.convWindow.groups);
        continue;
      }
      if (launch.info->kind != hetx::PLAN_GATHER)
        continue;
      launch.runs = state.runs.as<DeviceRun>() + runAt;
      launch.operandTable = state.tables.as<const float *>() + tableAt;
      runAt += launch.info->runs.size();
      tableAt += launch.operands.size();
    }
    return true;
  }

  CudaProgram::State &state;
  const plan::Plan &plan;
  std::string &error;
  std::map<const std::vector<float> *, float *> devicePlace;
  std::vector<DeviceRun> gatherRuns;
  std::vector<const float *> operandTable;
  uint64_t tempWords = 0, accWords = 0, weightWords = 0, lastWriterRows = 0;
};

/// Launches one kernel into `result` (its storage, or a copy of it).
bool launch(const CudaProgram::State &state, const Launch &l, float *result,
            std::string &error) {
  const PlanKernelInfo &kernel = *l.info;
  const plan::Plan &plan = *state.plan;
  void *stream = state.stream;
  const PlanBufferInfo &out = plan.buffers[kernel.result];
  const PlanBufferInfo &in = plan.buffers[kernel.operands[0]];
  auto operand = [&](size_t i) {
    return i < l.operands.size() ? l.operands[i] : nullptr;
  };
  switch (kernel.kind) {
  case hetx::PLAN_BINARY:
  case hetx::PLAN_SELECT:
  case hetx::PLAN_UNARY:
  case hetx::PLAN_CAST:
    launchLanes(l.op, operand(0), operand(1), operand(2),
                l.broadcast ? &l.strides : nullptr, result, out.elements,
                stream);
    break;
  case hetx::PLAN_SOFTMAX:
    launchSoftmax(roundOf(kernel.op.inType), operand(0), result, in.rows(),
                  in.rowLength(), plan.lanes, stream);
    break;
  case hetx::PLAN_REDUCE:
    // Rows of no elements: each result is 0, as on the CPU.
    if (in.rowLength() == 0 &&
        !ok(cudaMemsetAsync(result, 0, out.elements * sizeof(float),
                            state.stream),
            "cudaMemsetAsync", error))
      return false;
    launchReduce(int32_t(kernel.op.opcode), io::isFloat(kernel.op.inType),
                 roundOf(kernel.op.outType), operand(0), result, in.rows(),
                 in.rowLength(), plan.lanes, stream);
    break;
  case hetx::PLAN_TRANSPOSE:
    launchTranspose(l.strides, operand(0), result, out.elements, stream);
    break;
  case hetx::PLAN_DEPTHWISE_CONV:
    launchDepthwiseConv(l.window, operand(0), operand(1), operand(2), result,
                        stream);
    break;
  case hetx::PLAN_DEPTHWISE_CONV_CF: {
    size_t columns = taps(l.cfWindow);
    launchDepthwiseConvCf(
        l.cfWindow, operand(0), l.operandTable,
        kernel.operands.size() > columns + 1 ? operand(columns + 1) : nullptr,
        result, stream);
    break;
  }
  case hetx::PLAN_CONV:
    launchConv(l.convWindow, operand(0), l.operandTable, result, stream);
    break;
  case hetx::PLAN_GATHER:
    launchGather(l.runs, kernel.runs.size(), l.longestRun, l.operandTable,
                 result, stream);
    break;
  case hetx::PLAN_GATHER_ROWS:
    launchGatherRows(operand(0), l.tableRows, l.row, operand(1), l.indices,
                     result, state.badIndices.as<uint64_t>() + l.badSlot,
                     stream);
    break;
  case hetx::PLAN_SCATTER_ROWS:
    launchScatterRows(operand(0), operand(1), l.indices, result, l.tableRows,
                      l.row, state.lastWriter.as<int64_t>(),
                      state.badIndices.as<uint64_t>() + l.badSlot, stream);
    break;
  case hetx::PLAN_MATMUL: {
    uint64_t m = kernel.m, k = kernel.k, n = kernel.n;
    float *acc = l.hasCast ? state.scratchAcc : result;
    const float *w = l.weight;
    if (l.convertWeight) {
      launchIntToFloat(w, state.scratchWeight, k * n, stream);
      w = state.scratchWeight;
    }
    if (m == 0 || n == 0)
      break;
    if (!io::isFloat(kernel.op.inType)) {
      launchIntegerMatmul(operand(0), w, acc, m, k, n, stream);
    } else if (k == 0) {
      if (!ok(cudaMemsetAsync(acc, 0, m * n * sizeof(float), state.stream),
              "cudaMemsetAsync", error))
        return false;
    } else {
      // Row-major Y = X W is column-major Y^T = W^T X^T. A transposed
      // weight, row-major N x K, reads column-major as K x N: cuBLAS
      // transposes it back (OP_T, leading dimension K).
      const float one = 1.0f, zero = 0.0f;
      bool t = kernel.transposedWeight;
      if (!ok(cublasSgemm(state.blas, t ? CUBLAS_OP_T : CUBLAS_OP_N,
                          CUBLAS_OP_N, int(n), int(m), int(k), &one, w,
                          t ? int(k) : int(n), operand(0), int(k), &zero, acc,
                          int(n)),
              "cublasSgemm", error))
        return false;
    }
    if (l.scale || l.bias || l.hasActivation || l.hasCast)
      launchFinishMatmul(acc, m, n, l.scale, l.mul, l.bias,
                         l.hasBiasCast ? &l.biasCast : nullptr, l.add,
                         l.hasActivation ? &l.activation : nullptr,
                         l.hasCast ? &l.cast : nullptr, result, stream);
    break;
  }
  default:
    error = kernel.label + ": not a kernel kind";
    return false;
  }
  return ok(cudaGetLastError(), "kernel launch", error);
}

/// After a run: the first gather or scatter whose indices left its table,
/// named as the CPU backend names it.
bool checkIndices(const CudaProgram::State &state, std::string &error) {
  std::vector<uint64_t> bad(state.badInitial.size());
  if (!bad.empty() &&
      !ok(cudaMemcpy(bad.data(), state.badIndices.as<uint64_t>(),
                     bad.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy (index checks)", error))
    return false;
  for (const Launch &l : state.launches) {
    if (l.badSlot < 0 || (bad[size_t(l.badSlot)] >> 32) >= l.indices)
      continue;
    uint64_t element = bad[size_t(l.badSlot)] >> 32;
    int32_t value = int32_t(uint32_t(bad[size_t(l.badSlot)]));
    error = "index out of range: " + l.info->label + ": index " +
            std::to_string(value) + " (element " + std::to_string(element) +
            " of the indices) is outside the "
            "table's " +
            std::to_string(l.tableRows) + " rows";
    return false;
  }
  return true;
}

} // namespace

bool load(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
          CudaProgram &program, std::string &error) {
  program.state.reset();
  auto checked = plan::load(artifact, chip, error);
  if (!checked)
    return false;
  auto state = std::make_unique<CudaProgram::State>();
  state->plan = std::move(checked);
  if (!Loader(*state, error).load())
    return false;
  program.state = std::move(state);
  return true;
}

bool run(const CudaProgram &program,
         const std::map<std::string, io::Tensor> &inputs, CudaResult &result,
         std::string &error) {
  const CudaProgram::State &state = *program.state;
  const plan::Plan &plan = *state.plan;
  if (!sim::checkInputs(plan.artifact, inputs, error))
    return false;
  result = CudaResult();
  // Each input's lane words stay in place until the copies are done.
  std::vector<std::vector<float>> converted(plan.buffers.size());
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const PlanBufferInfo &b = plan.buffers[i];
    if (b.origin != PlanBufferInfo::Origin::Input)
      continue;
    uint64_t bytes = b.elements * sizeof(float);
    if (const CudaProgram::State::Carried *c = state.carriedInput(b.input);
        c && c->valid) {
      if (!ok(cudaMemcpyAsync(state.base[i], c->held.as<float>(), bytes,
                              cudaMemcpyDeviceToDevice, state.stream),
              "cudaMemcpyAsync (carried inputs)", error))
        return false;
      continue;
    }
    const io::Tensor &tensor = inputs.at(plan.artifact.inputs(b.input).name());
    const float *words = sim::laneWords(tensor, converted[i]);
    if (!ok(cudaMemcpyAsync(state.base[i], words, bytes, cudaMemcpyHostToDevice,
                            state.stream),
            "cudaMemcpyAsync (inputs)", error))
      return false;
  }
  if (!state.badInitial.empty() &&
      !ok(cudaMemcpyAsync(state.badIndices.as<uint64_t>(),
                          state.badInitial.data(),
                          state.badInitial.size() * sizeof(uint64_t),
                          cudaMemcpyHostToDevice, state.stream),
          "cudaMemcpyAsync (index checks)", error))
    return false;
  if (!ok(cudaEventRecord(state.events[0], state.stream), "cudaEventRecord",
          error))
    return false;
  for (size_t k = 0; k < state.launches.size(); ++k) {
    const Launch &l = state.launches[k];
    uint64_t bytes = l.resultWords * sizeof(float);
    if (l.zeroFirst && !ok(cudaMemsetAsync(l.result, 0, bytes, state.stream),
                           "cudaMemsetAsync", error))
      return false;
    if (l.info->aliased) {
      // The result shares storage with an operand: computed into a copy.
      if (!ok(cudaMemcpyAsync(state.scratchTemp, l.result, bytes,
                              cudaMemcpyDeviceToDevice, state.stream),
              "cudaMemcpyAsync", error) ||
          !launch(state, l, state.scratchTemp, error) ||
          !ok(cudaMemcpyAsync(l.result, state.scratchTemp, bytes,
                              cudaMemcpyDeviceToDevice, state.stream),
              "cudaMemcpyAsync", error))
        return false;
    } else if (!launch(state, l, l.result, error)) {
      return false;
    }
    if (!ok(cudaEventRecord(state.events[k + 1], state.stream),
            "cudaEventRecord", error))
      return false;
  }
  if (!ok(cudaStreamSynchronize(state.stream), "cudaStreamSynchronize",
          error) ||
      !checkIndices(state, error))
    return false;
  result.stats.kernels = state.launches.size();
  for (size_t k = 0; k < state.launches.size(); ++k) {
    float ms = 0;
    if (!ok(cudaEventElapsedTime(&ms, state.events[k], state.events[k + 1]),
            "cudaEventElapsedTime", error))
      return false;
    result.stats.kernelSeconds.push_back(double(ms) / 1e3);
  }
  float total = 0;
  if (!ok(cudaEventElapsedTime(&total, state.events.front(),
                               state.events.back()),
          "cudaEventElapsedTime", error))
    return false;
  result.stats.seconds = double(total) / 1e3;
  result.stats.peakBytes = state.arenaBytes;
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    const hetx::TensorBinding &binding = plan.artifact.outputs(int(i));
    const PlanBufferInfo &b = plan.buffers[plan.outputs[i]];
    if (CudaProgram::State::Carried *c = state.carriedOutput(int(i))) {
      // Stays on the device for the next run.
      if (!ok(cudaMemcpy(c->held.as<float>(), state.base[plan.outputs[i]],
                         b.elements * sizeof(float), cudaMemcpyDeviceToDevice),
              "cudaMemcpy (carried outputs)", error))
        return false;
      c->valid = true;
      continue;
    }
    sim::NamedTensor output{binding.name(), {}};
    io::Tensor &tensor = output.tensor;
    tensor.type = *sim::elementTypeOf(binding.dtype());
    tensor.shape.assign(binding.shape().begin(), binding.shape().end());
    tensor.data.resize(b.elements);
    if (!ok(cudaMemcpy(tensor.data.data(), state.base[plan.outputs[i]],
                       b.elements * sizeof(float), cudaMemcpyDeviceToHost),
            "cudaMemcpy (outputs)", error))
      return false;
    sim::keepLaneWords(tensor);
    result.outputs.push_back(std::move(output));
  }
  return true;
}

bool carry(CudaProgram &program,
           const std::vector<std::pair<std::string, std::string>> &pairs,
           std::string &error) {
  CudaProgram::State &state = *program.state;
  const hetx::Artifact &artifact = state.plan->artifact;
  state.carried.clear();
  auto indexOf = [](const auto &bindings, const std::string &name) {
    for (int i = 0; i < bindings.size(); ++i)
      if (bindings.Get(i).name() == name)
        return i;
    return -1;
  };
  for (const auto &[input, output] : pairs) {
    auto c = std::make_unique<CudaProgram::State::Carried>();
    c->input = indexOf(artifact.inputs(), input);
    c->output = indexOf(artifact.outputs(), output);
    if (state.carriedInput(c->input) || state.carriedOutput(c->output)) {
      error = "cannot carry output '" + output + "' to input '" + input +
              "': one of them is carried already";
      return false;
    }
    if (c->input < 0 || c->output < 0) {
      error = "cannot carry output '" + output + "' to input '" + input +
              "': the artifact has no such " +
              (c->input < 0 ? "input" : "output");
      return false;
    }
    const hetx::TensorBinding &in = artifact.inputs(c->input),
                              &out = artifact.outputs(c->output);
    uint64_t elements =
        state.plan->buffers[state.plan->outputs[size_t(c->output)]].elements;
    if (in.dtype() != out.dtype() ||
        !std::equal(in.shape().begin(), in.shape().end(), out.shape().begin(),
                    out.shape().end())) {
      error = "cannot carry output '" + output + "' to input '" + input +
              "': they differ in shape or type";
      return false;
    }
    c->elements = elements;
    if (!c->held.allocate(elements * sizeof(float), "a carried output", error))
      return false;
    state.carried.push_back(std::move(c));
  }
  return true;
}

void restartCarried(CudaProgram &program) {
  for (auto &c : program.state->carried)
    c->valid = false;
}

bool fetchCarried(const CudaProgram &program,
                  std::map<std::string, io::Tensor> &values,
                  std::string &error) {
  const CudaProgram::State &state = *program.state;
  for (const auto &c : state.carried) {
    if (!c->valid)
      continue;
    const hetx::TensorBinding &binding = state.plan->artifact.inputs(c->input);
    io::Tensor tensor;
    tensor.type = *sim::elementTypeOf(binding.dtype());
    tensor.shape.assign(binding.shape().begin(), binding.shape().end());
    tensor.data.resize(c->elements);
    if (!ok(cudaMemcpy(tensor.data.data(), c->held.as<float>(),
                       c->elements * sizeof(float), cudaMemcpyDeviceToHost),
            "cudaMemcpy (carried values)", error))
      return false;
    sim::keepLaneWords(tensor);
    values[binding.name()] = std::move(tensor);
  }
  return true;
}

} // namespace hetc::cuda
