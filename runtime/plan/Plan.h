//===- Plan.h - An artifact's kernel plan, checked for the backends -*- C++
//-*-===//
//
// The kernel plan of a .hetx artifact (hetx.proto, `KernelPlan`) as the
// backends other than the chip run it: every buffer, kernel and index
// checked before anything of its size is allocated, and what each kernel
// needs derived once. The CPU and CUDA backends both start from a Plan.
//
//===----------------------------------------------------------------------===//
#ifndef HETC_RUNTIME_PLAN_PLAN_H
#define HETC_RUNTIME_PLAN_PLAN_H

#include "runtime/chip/ChipSpec.h"
#include "runtime/io/ElementType.h"
#include "runtime/plan/Window3.h"
#include "runtime/schema/hetx.pb.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Simulator.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hetc::plan {

/// A plan buffer: its lane type and shape, and where its elements live.
struct PlanBufferInfo {
  enum class Origin { Input, Constant, View, Scratch };
  Origin origin = Origin::Scratch;
  io::ElementType type = io::ElementType::F32;
  std::vector<int64_t> shape;
  uint64_t elements = 0;
  /// The buffer whose storage this one uses: itself, or for a view the
  /// buffer at the root of its chain of views.
  uint32_t root = 0;
  /// Origin::Input: the index of its binding in Artifact.inputs.
  int input = -1;
  /// Origin::Constant: its lane words.
  const std::vector<float> *constant = nullptr;

  uint64_t rowLength() const {
    return shape.empty() ? 1 : uint64_t(shape.back());
  }
  uint64_t rows() const { return rowLength() ? elements / rowLength() : 0; }
};

/// A run of a gather's indices, within operand `operand`: elements
/// `first`, `first + step`, ... of it, `count` of them; `first` -1 gives
/// zeros.
struct IndexRun {
  int64_t first = -1;
  int64_t step = 0;
  uint64_t count = 0;
  uint32_t operand = 0;
  /// Where the run's first element goes, from the first one the gather
  /// fills.
  uint64_t offset = 0;
};

/// A plan kernel with everything checked and derived at load.
struct PlanKernelInfo {
  hetx::PlanKernelKind kind = hetx::PLAN_KERNEL_UNSPECIFIED;
  /// "kernel #i (node 'name')", for errors.
  std::string label;
  std::vector<uint32_t> operands;
  uint32_t result = 0;
  /// The vector-unit operation: opcode, operand and result types, cast
  /// modes (as the chip model decodes them).
  sim::Op op;
  /// PLAN_MATMUL: M x K times K x N (a transposed weight: N x K), the
  /// optional bias and scale buffers, the activation (V_RELU, V_SIGMOID,
  /// V_TANH) or OPCODE_UNSPECIFIED, and the weight as the kernel takes it
  /// where that is not its buffer, made once: an integer weight of a float
  /// matmul converted to floats, an interleaved weight laid out K x N.
  uint64_t m = 0, k = 0, n = 0;
  bool transposedWeight = false;
  int bias = -1, scale = -1;
  hetx::Opcode activation = hetx::OPCODE_UNSPECIFIED;
  std::vector<float> floatWeight;
  /// PLAN_TRANSPOSE.
  std::vector<int64_t> perm;
  /// PLAN_DEPTHWISE_CONV: the window along the rows and the columns
  /// (strides, begin pads, end pads, dilations), as the artifact gives it;
  /// PLAN_DEPTHWISE_CONV_CF, PLAN_CONV: the same per spatial dimension.
  std::vector<int64_t> strides, pads, dilations;
  /// PLAN_DEPTHWISE_CONV_CF, PLAN_CONV: the input map (N, C, spatial
  /// extents), and the window as three spatial dimensions. PLAN_CONV: the
  /// output channels in `m`, the values of a group's weight row before the
  /// bias in `k` and whether the rows end in the bias (the groups are the
  /// weight operands, operands 1 on).
  std::vector<int64_t> inputShape;
  Window3 window;
  bool withBias = false;
  /// PLAN_GATHER: the runs, and the first result element they fill.
  std::vector<IndexRun> runs;
  uint64_t firstElement = 0;
  /// PLAN_GATHER: the elements the runs fill.
  uint64_t elements = 0;
  /// Whether the result shares storage with an operand: the kernel then
  /// computes into a copy.
  bool aliased = false;
  /// Whether the kernel writes every element of its result's storage (so
  /// that fresh storage needs no zeros first).
  bool fills = false;
  /// Roots whose storage is last used by this kernel.
  std::vector<uint32_t> frees;
};

/// A checked kernel plan. It refers to the artifact it was loaded from,
/// which must outlive it.
struct Plan {
  explicit Plan(const hetx::Artifact &artifact) : artifact(artifact) {}
  const hetx::Artifact &artifact;
  /// The chip's lanes: reductions and softmax work a vector of this many
  /// elements at a time, as on the chip.
  uint32_t lanes = 0;
  std::vector<PlanBufferInfo> buffers;
  std::vector<PlanKernelInfo> kernels;
  /// The decoded constants the plan uses.
  std::vector<std::vector<float>> constants;
  uint64_t constantBytes = 0;
  /// Per artifact output: the buffer that holds it.
  std::vector<uint32_t> outputs;
};

/// Figures from one run of a plan, on any backend.
struct RunStats {
  /// The kernels' time, from the first to the end of the last: wall time
  /// on the CPU, device time on a GPU (without the copies in and out).
  double seconds = 0;
  uint64_t kernels = 0;
  /// Per kernel of the plan, in order: its time in seconds.
  std::vector<double> kernelSeconds;
  /// The bytes of the arena that holds the run's buffers (inputs and
  /// intermediates; the constants are the program's), placed at load by
  /// the buffers' lives (plan::placeBuffers).
  uint64_t peakBytes = 0;
};

/// What one run of a plan gives.
struct RunResult {
  /// The artifact's outputs, in binding order.
  std::vector<sim::NamedTensor> outputs;
  RunStats stats;
};

/// Checks the kernel plan of `artifact`, compiled for `chip`, and decodes
/// its constants. Every buffer, kernel and index is checked before
/// anything of its size is allocated: shapes against the chip's SRAM (a
/// buffer holds no more elements than the SRAM has bytes, and neither do
/// the buffers live at once), operands against each kernel's kind, element
/// types as the chip model checks them. Returns null with `error` naming
/// the buffer or kernel (and its ONNX node) that is wrong, or saying that
/// the artifact has no plan.
std::unique_ptr<Plan> load(const hetx::Artifact &artifact,
                           const chip::ChipSpec &chip, std::string &error);

/// Kernel `i` as errors name it, "kernel #i (node 'name')", and its kind
/// in lower case ("matmul").
std::string kernelLabel(const Plan &plan, size_t i);

} // namespace hetc::plan

#endif // HETC_RUNTIME_PLAN_PLAN_H
