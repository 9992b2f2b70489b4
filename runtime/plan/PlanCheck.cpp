//===- PlanCheck.cpp - Checking an artifact's kernel plan --------------===//

#include "runtime/plan/Plan.h"

#include "compiler/dialects/common/DepthwiseWindow.h"
#include "runtime/artifact/ArtifactFile.h"

#include "runtime/sim/DataTypes.h"
#include "runtime/sim/Simulator.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

namespace hetc::plan {

std::string kernelLabel(const Plan &plan, size_t i) {
  const PlanKernelInfo &kernel = plan.kernels[i];
  std::string kind = hetx::PlanKernelKind_Name(kernel.kind);
  if (kind.rfind("PLAN_", 0) == 0)
    kind = kind.substr(5);
  for (char &c : kind)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return kernel.label + " " + kind;
}

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  return io::shapeString(shape);
}

/// The lane type a binding of `type` is held in.
io::ElementType laneTypeOf(io::ElementType type) {
  return io::isHostOnly(type) ? io::heldAs(type) : type;
}

/// Checks a plan and fills the state; every failure names what is wrong.
class PlanChecker {
public:
  PlanChecker(const hetx::Artifact &artifact, const chip::ChipSpec &chip,
              Plan &state, std::string &error)
      : artifact(artifact), plan(artifact.kernel_plan()), state(state),
        error(error) {
    state.lanes = chip.lanes();
    // No buffer, and no set of buffers live at once, holds more elements
    // than the chip's SRAM has bytes: the chip holds a buffer at its
    // native width, at best one byte an element.
    limit = chip.totalVectors() * uint64_t(chip.lanes()) * chip::kElementBytes;
  }

  bool check() {
    return checkBuffers() && checkKernels() && checkOutputs() &&
           checkLiveness();
  }

private:
  bool fail(const std::string &what, const std::string &why) {
    error = "kernel plan: " + what + ": " + why;
    return false;
  }
  static std::string bufferName(size_t i) {
    return "buffer #" + std::to_string(i);
  }

  bool checkBuffers();
  bool checkKernels();
  bool checkKernel(size_t index, const hetx::PlanKernel &kernel,
                   PlanKernelInfo &info);
  bool checkOutputs();
  bool checkLiveness();
  bool checkMatmul(const hetx::PlanKernel &kernel, PlanKernelInfo &info);
  /// Checks an interleaved weight's fields and shape and sets `wShape` to
  /// the K x N it holds.
  bool checkInterleave(const hetx::PlanKernel &kernel, PlanKernelInfo &info,
                       const PlanBufferInfo &x, const PlanBufferInfo &w,
                       const PlanBufferInfo &y, std::vector<int64_t> &wShape);
  bool checkGather(const hetx::PlanKernel &kernel, PlanKernelInfo &info);
  /// The map, window and result of a channels-first convolution of
  /// `outChannels` output channels (`what`, for errors): sets the window
  /// fields of `info` and checks operand 0 and the result.
  bool checkWindowMap(const hetx::PlanKernel &kernel, PlanKernelInfo &info,
                      int64_t outChannels, const std::string &what);
  bool checkDepthwiseConvCf(const hetx::PlanKernel &kernel,
                            PlanKernelInfo &info);
  bool checkConv(const hetx::PlanKernel &kernel, PlanKernelInfo &info);
  bool checkDepthwiseConv(const hetx::PlanKernel &kernel, PlanKernelInfo &info);
  /// Sets info.op from a vector instruction of `opcode` on `dtype` lanes
  /// (V_CAST: from `from`) and checks its types as the chip model does.
  bool checkTypes(PlanKernelInfo &info, hetx::Opcode opcode,
                  io::ElementType dtype,
                  std::optional<io::ElementType> from = std::nullopt,
                  const hetx::PlanKernel *cast = nullptr);
  /// Whether `operand` broadcasts to `result` as numpy does.
  static bool broadcasts(const std::vector<int64_t> &operand,
                         const std::vector<int64_t> &result) {
    if (operand.size() > result.size())
      return false;
    size_t offset = result.size() - operand.size();
    for (size_t i = 0; i < operand.size(); ++i)
      if (operand[i] != 1 && operand[i] != result[offset + i])
        return false;
    return true;
  }
  const PlanBufferInfo &buffer(uint32_t i) const { return state.buffers[i]; }

  const hetx::Artifact &artifact;
  const hetx::KernelPlan &plan;
  Plan &state;
  std::string &error;
  uint64_t limit = 0;
};

bool PlanChecker::checkBuffers() {
  std::map<uint64_t, int> constantAt;
  for (int i = 0; i < artifact.constants_size(); ++i)
    constantAt.emplace(artifact.constants(i).binding().address(), i);
  std::map<int, size_t> decoded;
  size_t count = size_t(plan.buffers_size());
  state.buffers.resize(count);
  // Decoded constants are kept by index: reserve so that pointers to them
  // stay valid.
  state.constants.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const hetx::PlanBuffer &pb = plan.buffers(int(i));
    PlanBufferInfo &info = state.buffers[i];
    std::string name = bufferName(i);
    std::optional<io::ElementType> type = sim::elementTypeOf(pb.dtype());
    if (!type || io::isHostOnly(*type))
      return fail(name, "dtype " + std::to_string(pb.dtype()) +
                            " is not a lane type of the chip");
    info.type = *type;
    info.shape.assign(pb.shape().begin(), pb.shape().end());
    if (!io::elementCount(info.shape, info.elements) || info.elements > limit)
      return fail(name, "shape " + shapeText(info.shape) +
                            " is invalid or larger than the chip's SRAM (" +
                            std::to_string(limit) + " elements at most)");
    info.root = uint32_t(i);
    switch (pb.origin_case()) {
    case hetx::PlanBuffer::kInput: {
      auto it = std::find_if(
          artifact.inputs().begin(), artifact.inputs().end(),
          [&](const hetx::TensorBinding &b) { return b.name() == pb.input(); });
      if (it == artifact.inputs().end())
        return fail(name, "input '" + pb.input() +
                              "' is not an input of the artifact");
      std::vector<int64_t> shape(it->shape().begin(), it->shape().end());
      std::optional<io::ElementType> bound = sim::elementTypeOf(it->dtype());
      uint64_t elements = 0;
      if (!bound || laneTypeOf(*bound) != info.type ||
          !io::elementCount(shape, elements) || elements != info.elements)
        return fail(name, "input '" + pb.input() + "' is bound as " +
                              shapeText(shape) + ", not as " +
                              shapeText(info.shape) + " of " +
                              io::typeName(info.type));
      info.origin = PlanBufferInfo::Origin::Input;
      info.input = int(it - artifact.inputs().begin());
      break;
    }
    case hetx::PlanBuffer::kConstantAddress: {
      auto it = constantAt.find(pb.constant_address());
      if (it == constantAt.end())
        return fail(name, "no constant of the artifact is at SRAM address " +
                              std::to_string(pb.constant_address()));
      const hetx::Constant &constant = artifact.constants(it->second);
      std::optional<io::ElementType> ctype =
          sim::elementTypeOf(constant.binding().dtype());
      if (!ctype || *ctype != info.type ||
          constant.data().size() / io::byteWidth(*ctype) != info.elements)
        return fail(name, "the constant at SRAM address " +
                              std::to_string(pb.constant_address()) +
                              " does not hold " + shapeText(info.shape) +
                              " of " + io::typeName(info.type));
      auto [at, added] =
          decoded.try_emplace(it->second, state.constants.size());
      if (added) {
        state.constants.push_back(sim::decodeConstant(constant.data(), *ctype));
        state.constantBytes += info.elements * sizeof(float);
      }
      info.origin = PlanBufferInfo::Origin::Constant;
      info.constant = &state.constants[at->second];
      break;
    }
    case hetx::PlanBuffer::kViewOf: {
      uint32_t source = pb.view_of();
      if (source >= i)
        return fail(name, "views buffer #" + std::to_string(source) +
                              ", which is not an earlier buffer");
      const PlanBufferInfo &of = state.buffers[source];
      // f32 and i32 are one lane word each: a view may read either as the
      // other (a bit cast).
      auto word = [](io::ElementType t) {
        return t == io::ElementType::F32 || t == io::ElementType::I32;
      };
      if (info.elements > state.buffers[of.root].elements ||
          (info.type != of.type && !(word(info.type) && word(of.type))))
        return fail(name, "a view of " + shapeText(info.shape) + " of " +
                              io::typeName(info.type) + " cannot see " +
                              bufferName(source) + " (" + shapeText(of.shape) +
                              " of " + io::typeName(of.type) + ")");
      info.origin = PlanBufferInfo::Origin::View;
      info.root = of.root;
      info.constant = of.constant;
      break;
    }
    case hetx::PlanBuffer::kScratch:
      info.origin = PlanBufferInfo::Origin::Scratch;
      break;
    default:
      return fail(name, "has no origin (input, constant, view or scratch)");
    }
  }
  return true;
}

bool PlanChecker::checkTypes(PlanKernelInfo &info, hetx::Opcode opcode,
                             io::ElementType dtype,
                             std::optional<io::ElementType> from,
                             const hetx::PlanKernel *cast) {
  std::optional<sim::OpClass> kind = sim::opClassOf(opcode);
  if (!kind || (*kind != sim::OpClass::VectorBinary &&
                *kind != sim::OpClass::VectorUnary &&
                *kind != sim::OpClass::VectorReduce &&
                *kind != sim::OpClass::VectorSelect))
    return fail(info.label, "opcode " + std::to_string(int(opcode)) +
                                " is not an operation of the vector unit");
  hetx::Instruction instr;
  instr.set_opcode(opcode);
  instr.set_dtype(sim::dataTypeOf(dtype));
  if (from)
    instr.set_src_dtype(sim::dataTypeOf(*from));
  if (cast) {
    instr.set_overflow(cast->overflow());
    instr.set_e8m0_rounding(cast->e8m0_rounding());
  }
  info.op = sim::Op();
  info.op.opcode = opcode;
  info.op.kind = *kind;
  std::string what, details;
  if (!sim::decodeTypes(instr, info.op, what, details))
    return fail(info.label, details);
  return true;
}

bool PlanChecker::checkMatmul(const hetx::PlanKernel &kernel,
                              PlanKernelInfo &info) {
  const PlanBufferInfo &x = buffer(info.operands[0]),
                       &w = buffer(info.operands[1]), &y = buffer(info.result);
  // A transposed weight is N x K; an interleaved one is K x N once laid
  // out again.
  info.transposedWeight = kernel.transposed_weight();
  size_t kDim = info.transposedWeight ? 1 : 0;
  std::vector<int64_t> wShape = w.shape;
  if (kernel.interleave() > 1 &&
      !checkInterleave(kernel, info, x, w, y, wShape))
    return false;
  if (x.shape.size() != 2 || wShape.size() != 2 || y.shape.size() != 2 ||
      x.shape[1] != wShape[kDim] || y.shape[0] != x.shape[0] ||
      y.shape[1] != wShape[1 - kDim])
    return fail(info.label, "a matrix product of " + shapeText(x.shape) +
                                " and " + shapeText(wShape) +
                                (info.transposedWeight ? " transposed" : "") +
                                " into " + shapeText(y.shape));
  info.m = uint64_t(x.shape[0]);
  info.k = uint64_t(x.shape[1]);
  info.n = uint64_t(wShape[1 - kDim]);
  bool isFloat = io::isArithmeticFloat(x.type);
  if (!isFloat && x.type != io::ElementType::I8 &&
      x.type != io::ElementType::U8)
    return fail(info.label, "matrix inputs are f32, f16, bf16, i8 or u8, not " +
                                io::typeName(x.type));
  bool byteWeight =
      w.type == io::ElementType::I8 || w.type == io::ElementType::U8;
  if (isFloat ? w.type != x.type &&
                    !(w.type == io::ElementType::I8 && kernel.has_scale())
              : !byteWeight)
    return fail(info.label, "a weight of " + io::typeName(w.type) +
                                " does not go with an input of " +
                                io::typeName(x.type));
  if (info.transposedWeight && (!isFloat || w.type != x.type))
    return fail(info.label, "a transposed weight is a float of the input's "
                            "type, not " +
                                io::typeName(w.type));
  io::ElementType acc = isFloat ? io::ElementType::F32 : io::ElementType::I32;
  auto row = [&](uint32_t index, const char *what, int &slot) {
    if (index >= state.buffers.size())
      return fail(info.label, std::string(what) + " buffer #" +
                                  std::to_string(index) + " does not exist");
    const PlanBufferInfo &b = buffer(index);
    if (b.elements != info.n || b.rowLength() != info.n)
      return fail(info.label, std::string(what) + " of " + shapeText(b.shape) +
                                  " is not one row of " +
                                  std::to_string(info.n));
    slot = int(index);
    return true;
  };
  if (kernel.has_bias() && !row(kernel.bias(), "bias", info.bias))
    return false;
  if (kernel.has_scale()) {
    if (!row(kernel.scale(), "scale", info.scale))
      return false;
    if (buffer(kernel.scale()).type != io::ElementType::F32 || !isFloat)
      return fail(info.label, "a scale is an f32 row of a float matmul");
  }
  // A bias or scale in the result's storage is read after the product is
  // written: the kernel then computes into a copy.
  for (int b : {info.bias, info.scale})
    if (b >= 0)
      info.aliased |= buffer(uint32_t(b)).root == y.root;
  if (info.bias >= 0) {
    io::ElementType b = buffer(uint32_t(info.bias)).type;
    if (b != acc && !checkTypes(info, hetx::V_CAST, acc, b))
      return false;
  }
  switch (kernel.opcode()) {
  case hetx::OPCODE_UNSPECIFIED:
    break;
  case hetx::V_RELU:
  case hetx::V_SIGMOID:
  case hetx::V_TANH:
    if (!checkTypes(info, kernel.opcode(), acc))
      return false;
    info.activation = kernel.opcode();
    break;
  default:
    return fail(info.label, "activation opcode " +
                                std::to_string(int(kernel.opcode())) +
                                " is not V_RELU, V_SIGMOID or V_TANH");
  }
  // The sums leave the plane in `acc` and are converted to the result's
  // type.
  if (y.type != acc && !checkTypes(info, hetx::V_CAST, y.type, acc))
    return false;
  info.op.inType = x.type;
  info.op.outType = y.type;
  if (isFloat && w.type != x.type && w.constant && kernel.interleave() <= 1) {
    info.floatWeight.resize(w.elements);
    for (uint64_t i = 0; i < w.elements; ++i)
      info.floatWeight[i] = float(sim::intOfWord((*w.constant)[i]));
  }
  if (kernel.interleave() > 1) {
    // Laid out K x N again, once: element [g][(j * p + q) * n + c] is
    // W[g * p + q][j * n + c].
    // An i8 weight of a float matmul is converted to floats as it goes.
    uint64_t p = kernel.interleave(), cols = kernel.interleave_cols();
    uint64_t width = uint64_t(w.shape[1]);
    bool toFloat = isFloat && w.type != x.type;
    std::vector<float> laidOut(info.k * info.n, 0.0f);
    for (uint64_t r = 0; r < info.k; ++r)
      for (uint64_t c = 0; c < info.n; ++c) {
        float word = (*w.constant)[(r / p) * width +
                                   ((c / cols) * p + r % p) * cols + c % cols];
        laidOut[r * info.n + c] = toFloat ? float(sim::intOfWord(word)) : word;
      }
    info.floatWeight = std::move(laidOut);
  }
  return true;
}

bool PlanChecker::checkInterleave(const hetx::PlanKernel &kernel,
                                  PlanKernelInfo &info, const PlanBufferInfo &x,
                                  const PlanBufferInfo &w,
                                  const PlanBufferInfo &y,
                                  std::vector<int64_t> &wShape) {
  uint64_t p = kernel.interleave(), cols = kernel.interleave_cols();
  if (p != 2 && p != 4)
    return fail(info.label, "interleave " + std::to_string(p) +
                                " is not 2 (16-bit weights) or 4 (8-bit)");
  // Counted in the input's type: an i8 weight of an f16 or bf16 matmul
  // is converted on its way to the planes.
  bool converted =
      w.type == io::ElementType::I8 &&
      (x.type == io::ElementType::F16 || x.type == io::ElementType::BF16) &&
      kernel.has_scale();
  if ((w.type != x.type && !converted) || io::byteWidth(x.type) * p != 4)
    return fail(info.label, "an interleaved weight of " + io::typeName(w.type) +
                                " for an input of " + io::typeName(x.type) +
                                " takes " +
                                std::to_string(4 / io::byteWidth(x.type)) +
                                " rows to an SRAM row, and the input's type "
                                "or i8 converted to it");
  if (!w.constant || info.transposedWeight)
    return fail(info.label,
                "an interleaved weight is an untransposed constant");
  if (cols == 0 || cols > w.elements)
    return fail(info.label, "interleave_cols " + std::to_string(cols) +
                                " is not a column tile of the weight");
  if (x.shape.size() != 2 || y.shape.size() != 2 || w.shape.size() != 2)
    return fail(info.label, "a matrix product of " + shapeText(x.shape) +
                                " and " + shapeText(w.shape) + " into " +
                                shapeText(y.shape));
  uint64_t k = uint64_t(x.shape[1]), n = uint64_t(y.shape[1]);
  uint64_t rows = (k + p - 1) / p, width = (n + cols - 1) / cols * cols * p;
  if (uint64_t(w.shape[0]) != rows || uint64_t(w.shape[1]) != width)
    return fail(info.label, "an interleaved weight of " + shapeText(w.shape) +
                                " does not hold " + std::to_string(k) + " x " +
                                std::to_string(n) + " by " + std::to_string(p) +
                                " rows of " + std::to_string(cols) +
                                " columns (" + std::to_string(rows) + " x " +
                                std::to_string(width) + ")");
  wShape = {int64_t(k), int64_t(n)};
  return true;
}

bool PlanChecker::checkDepthwiseConv(const hetx::PlanKernel &kernel,
                                     PlanKernelInfo &info) {
  const PlanBufferInfo &x = buffer(info.operands[0]),
                       &w = buffer(info.operands[1]), &y = buffer(info.result);
  info.strides.assign(kernel.strides().begin(), kernel.strides().end());
  info.pads.assign(kernel.pads().begin(), kernel.pads().end());
  info.dilations.assign(kernel.dilations().begin(), kernel.dilations().end());
  if (x.shape.size() != 3 || w.shape.size() != 3 || y.shape.size() != 3 ||
      w.shape[2] != x.shape[2] || y.shape[2] != x.shape[2])
    return fail(info.label, "a depthwise convolution of " + shapeText(x.shape) +
                                " by " + shapeText(w.shape) + " into " +
                                shapeText(y.shape) +
                                " (H x W x C by kh x kw x C into Ho x Wo x C)");
  bool f32 = x.type == io::ElementType::F32 && w.type == io::ElementType::F32 &&
             y.type == io::ElementType::F32;
  if (info.operands.size() == 3) {
    const PlanBufferInfo &b = buffer(info.operands[2]);
    if (b.shape != std::vector<int64_t>{x.shape[2]})
      return fail(info.label, "a bias of " + shapeText(b.shape) + " for " +
                                  std::to_string(x.shape[2]) + " channels");
    f32 &= b.type == io::ElementType::F32;
  }
  if (!f32)
    return fail(info.label, "a depthwise convolution runs on f32 buffers");
  auto map = [](const std::vector<int64_t> &shape) {
    return std::vector<int64_t>(shape.begin(), shape.begin() + 2);
  };
  std::string mismatch =
      depthwise::windowMismatch(map(x.shape), map(y.shape), map(w.shape),
                                info.strides, info.pads, info.dilations);
  if (!mismatch.empty())
    return fail(info.label, mismatch);
  info.op.inType = info.op.outType = io::ElementType::F32;
  return true;
}

bool PlanChecker::checkWindowMap(const hetx::PlanKernel &kernel,
                                 PlanKernelInfo &info, int64_t outChannels,
                                 const std::string &what) {
  info.strides.assign(kernel.strides().begin(), kernel.strides().end());
  info.pads.assign(kernel.pads().begin(), kernel.pads().end());
  info.dilations.assign(kernel.dilations().begin(), kernel.dilations().end());
  info.inputShape.assign(kernel.input_shape().begin(),
                         kernel.input_shape().end());
  std::vector<int64_t> kernelShape(kernel.kernel_shape().begin(),
                                   kernel.kernel_shape().end()),
      outShape;
  const std::vector<int64_t> &shape = info.inputShape;
  if (shape.size() != kernelShape.size() + 2)
    return fail(info.label, "an input of " + shapeText(shape) +
                                " for a kernel of " + shapeText(kernelShape) +
                                " (N x C x the kernel's spatial extents)");
  std::vector<int64_t> map(shape.begin() + 2, shape.end());
  std::string mismatch = depthwise::windowExtents(
      map, kernelShape, info.strides, info.pads, info.dilations, outShape);
  if (!mismatch.empty())
    return fail(info.label, mismatch);
  // The element counts the shapes give, without overflow.
  uint64_t inputs = 1, outputs = 1;
  bool valid = shape[0] >= 0 && shape[1] >= 0 && outChannels >= 0;
  for (int64_t extent : shape)
    valid = valid && !__builtin_mul_overflow(inputs, uint64_t(extent), &inputs);
  valid = valid && !__builtin_mul_overflow(uint64_t(shape[0]),
                                           uint64_t(outChannels), &outputs);
  for (int64_t extent : outShape)
    valid =
        valid && !__builtin_mul_overflow(outputs, uint64_t(extent), &outputs);
  const PlanBufferInfo &x = buffer(info.operands[0]), &y = buffer(info.result);
  if (!valid || x.elements != inputs || y.elements != outputs)
    return fail(info.label, what + " of " + shapeText(shape) + " needs " +
                                std::to_string(inputs) + " input and " +
                                std::to_string(outputs) +
                                " result elements, its buffers hold " +
                                std::to_string(x.elements) + " and " +
                                std::to_string(y.elements));
  if (x.type != io::ElementType::F32 || y.type != io::ElementType::F32)
    return fail(info.label, what + " runs on f32 buffers");
  info.op.inType = info.op.outType = io::ElementType::F32;
  size_t rank = kernelShape.size();
  for (size_t i = 0; i < rank; ++i) {
    size_t j = 3 - rank + i;
    info.window.in[j] = map[i];
    info.window.out[j] = outShape[i];
    info.window.kernel[j] = kernelShape[i];
    info.window.stride[j] = info.strides[i];
    info.window.pad[j] = info.pads[i];
    info.window.dilation[j] = info.dilations[i];
  }
  return true;
}

bool PlanChecker::checkDepthwiseConvCf(const hetx::PlanKernel &kernel,
                                       PlanKernelInfo &info) {
  int64_t channels = kernel.input_shape_size() >= 2 ? kernel.input_shape(1) : 0;
  if (!checkWindowMap(kernel, info, channels, "a depthwise convolution"))
    return false;
  for (size_t i = 1; i < info.operands.size(); ++i) {
    const PlanBufferInfo &column = buffer(info.operands[i]);
    if (column.elements != uint64_t(channels))
      return fail(info.label, "operand " + std::to_string(i) + " holds " +
                                  std::to_string(column.elements) +
                                  " values for " + std::to_string(channels) +
                                  " channels");
    if (column.type != io::ElementType::F32)
      return fail(info.label, "a depthwise convolution runs on f32 buffers");
  }
  return true;
}

bool PlanChecker::checkConv(const hetx::PlanKernel &kernel,
                            PlanKernelInfo &info) {
  // The groups' weights: alike, rows of C/G x K values (and a bias).
  const PlanBufferInfo &first = buffer(info.operands[1]);
  uint64_t groups = info.operands.size() - 1;
  int64_t channels = kernel.input_shape_size() >= 2 ? kernel.input_shape(1) : 0;
  uint64_t taps = 1, row = 0, outChannels = 0;
  bool valid = first.shape.size() == 2 && first.shape[0] >= 0 &&
               channels >= 0 && uint64_t(channels) % groups == 0;
  for (int64_t extent : kernel.kernel_shape())
    valid = valid && extent > 0 &&
            !__builtin_mul_overflow(taps, uint64_t(extent), &taps);
  valid =
      valid &&
      !__builtin_mul_overflow(uint64_t(channels) / groups, taps, &row) &&
      !__builtin_mul_overflow(uint64_t(first.shape[0]), groups, &outChannels) &&
      outChannels <= uint64_t(INT64_MAX) &&
      (uint64_t(first.shape[1]) == row || uint64_t(first.shape[1]) == row + 1);
  if (!valid)
    return fail(info.label,
                "weights of " + shapeText(first.shape) + " in " +
                    std::to_string(groups) + " group(s) for " +
                    std::to_string(channels) +
                    " input channels (rows of C/G x K values, and the bias)");
  for (size_t i = 1; i < info.operands.size(); ++i) {
    const PlanBufferInfo &weight = buffer(info.operands[i]);
    if (weight.shape != first.shape || weight.type != io::ElementType::F32)
      return fail(info.label, "operand " + std::to_string(i) + " holds " +
                                  io::typeName(weight.type) + " " +
                                  shapeText(weight.shape) + ", not f32 " +
                                  shapeText(first.shape) +
                                  " as the first group's weights");
  }
  info.m = outChannels;
  info.k = row;
  info.withBias = uint64_t(first.shape[1]) == row + 1;
  return checkWindowMap(kernel, info, int64_t(outChannels), "a convolution");
}

bool PlanChecker::checkGather(const hetx::PlanKernel &kernel,
                              PlanKernelInfo &info) {
  const PlanBufferInfo &out = buffer(info.result);
  std::vector<int64_t> ends;
  int64_t total = 0;
  for (uint32_t operand : info.operands) {
    if (buffer(operand).type != out.type)
      return fail(info.label, "moves " + io::typeName(buffer(operand).type) +
                                  " elements into a buffer of " +
                                  io::typeName(out.type));
    total += int64_t(buffer(operand).elements);
    if (uint64_t(total) > limit)
      return fail(info.label, "its operands hold more elements than the "
                              "chip's SRAM");
    ends.push_back(total);
  }
  if (kernel.index_runs_size() % 3 != 0)
    return fail(info.label, "index_runs holds " +
                                std::to_string(kernel.index_runs_size()) +
                                " numbers, not (first, step, count) triples");
  uint64_t row = out.rowLength();
  if (kernel.first_row() > out.rows())
    return fail(info.label, "first_row " + std::to_string(kernel.first_row()) +
                                " is past the result's " +
                                std::to_string(out.rows()) + " rows");
  info.firstElement = kernel.first_row() * row;
  uint64_t filled = 0, room = out.elements - info.firstElement;
  for (int i = 0; i < kernel.index_runs_size(); i += 3) {
    IndexRun run;
    run.first = kernel.index_runs(i);
    run.step = kernel.index_runs(i + 1);
    int64_t count = kernel.index_runs(i + 2);
    std::string which = "index run " + std::to_string(i / 3);
    if (count <= 0 || uint64_t(count) > room - filled)
      return fail(info.label, which + " of " + std::to_string(count) +
                                  " elements does not fit the result (" +
                                  std::to_string(room - filled) + " left)");
    run.count = uint64_t(count);
    if (run.first == -1) {
      if (run.step != 0)
        return fail(info.label, which + " of zeros has step " +
                                    std::to_string(run.step) + ", not 0");
    } else {
      if (run.first < 0 || run.first >= total)
        return fail(info.label,
                    which + " starts at element " + std::to_string(run.first) +
                        " of operands holding " + std::to_string(total));
      auto it = std::upper_bound(ends.begin(), ends.end(), run.first);
      run.operand = uint32_t(it - ends.begin());
      int64_t begin = run.operand ? ends[run.operand - 1] : 0;
      // first + step * (count - 1) within [begin, end): both bounded by
      // the limit, so the product cannot overflow once |step| is.
      if (run.step > total || run.step < -total)
        return fail(info.label,
                    which + " has step " + std::to_string(run.step));
      __int128 last = __int128(run.first) + __int128(run.step) * (count - 1);
      if (last < begin || last >= *it)
        return fail(info.label,
                    which + " leaves operand " + std::to_string(run.operand));
      run.first -= begin;
    }
    run.offset = filled;
    filled += run.count;
    info.runs.push_back(run);
  }
  info.elements = filled;
  return true;
}

bool PlanChecker::checkKernel(size_t index, const hetx::PlanKernel &kernel,
                              PlanKernelInfo &info) {
  info.kind = kernel.kind();
  info.label = "kernel #" + std::to_string(index);
  if (!kernel.node().empty())
    info.label += " (node '" + kernel.node() + "')";
  size_t want = 0;
  switch (kernel.kind()) {
  case hetx::PLAN_MATMUL:
  case hetx::PLAN_BINARY:
  case hetx::PLAN_GATHER_ROWS:
  case hetx::PLAN_SCATTER_ROWS:
    want = 2;
    break;
  case hetx::PLAN_UNARY:
  case hetx::PLAN_CAST:
  case hetx::PLAN_SOFTMAX:
  case hetx::PLAN_REDUCE:
  case hetx::PLAN_TRANSPOSE:
    want = 1;
    break;
  case hetx::PLAN_SELECT:
    want = 3;
    break;
  case hetx::PLAN_GATHER:
    want = std::max<size_t>(size_t(kernel.operands_size()), 1);
    break;
  case hetx::PLAN_DEPTHWISE_CONV:
    // The input, the weight and an optional bias.
    want = kernel.operands_size() == 3 ? 3 : 2;
    break;
  case hetx::PLAN_DEPTHWISE_CONV_CF: {
    // The input, a column per kernel element and an optional bias.
    uint64_t taps = 1;
    bool valid =
        kernel.kernel_shape_size() >= 1 && kernel.kernel_shape_size() <= 3;
    for (int64_t extent : kernel.kernel_shape())
      valid = valid && extent > 0 &&
              !__builtin_mul_overflow(taps, uint64_t(extent), &taps) &&
              taps < uint64_t(kernel.operands_size());
    if (!valid)
      return fail(
          info.label,
          "a kernel of " +
              shapeText(std::vector<int64_t>(kernel.kernel_shape().begin(),
                                             kernel.kernel_shape().end())) +
              " (one to three positive extents, a column operand "
              "for each element)");
    want = size_t(kernel.operands_size()) == taps + 2 ? taps + 2 : taps + 1;
    break;
  }
  case hetx::PLAN_CONV:
    // The input and a weight per group.
    if (kernel.kernel_shape_size() < 1 || kernel.kernel_shape_size() > 3 ||
        kernel.operands_size() < 2)
      return fail(info.label, "a convolution takes a kernel of one to three "
                              "spatial extents, the input and a weight per "
                              "group");
    want = size_t(kernel.operands_size());
    break;
  default:
    return fail(info.label, "kind " + std::to_string(int(kernel.kind())) +
                                " is not a kernel kind");
  }
  if (size_t(kernel.operands_size()) != want)
    return fail(info.label, "has " + std::to_string(kernel.operands_size()) +
                                " operands, not " + std::to_string(want));
  for (uint32_t operand : kernel.operands()) {
    if (operand >= state.buffers.size())
      return fail(info.label, "operand buffer #" + std::to_string(operand) +
                                  " does not exist");
    info.operands.push_back(operand);
  }
  if (kernel.result() >= state.buffers.size())
    return fail(info.label, "result buffer #" +
                                std::to_string(kernel.result()) +
                                " does not exist");
  info.result = kernel.result();
  const PlanBufferInfo &out = buffer(info.result);
  if (buffer(out.root).origin == PlanBufferInfo::Origin::Constant)
    return fail(info.label, "writes a constant");
  for (uint32_t operand : info.operands)
    info.aliased |= buffer(operand).root == out.root;
  const PlanBufferInfo &in = buffer(info.operands[0]);
  auto sameShape = [&](const PlanBufferInfo &a) {
    if (a.shape == out.shape)
      return true;
    return fail(info.label, "operand of " + shapeText(a.shape) +
                                " and result of " + shapeText(out.shape) +
                                " differ in shape");
  };
  auto resultType = [&]() {
    if (info.op.outType == out.type)
      return true;
    return fail(info.label, "gives " + io::typeName(info.op.outType) +
                                ", but its result buffer holds " +
                                io::typeName(out.type));
  };
  switch (kernel.kind()) {
  case hetx::PLAN_MATMUL:
    return checkMatmul(kernel, info);
  case hetx::PLAN_BINARY: {
    const PlanBufferInfo &rhs = buffer(info.operands[1]);
    if (!broadcasts(in.shape, out.shape) || !broadcasts(rhs.shape, out.shape))
      return fail(info.label,
                  shapeText(in.shape) + " and " + shapeText(rhs.shape) +
                      " do not broadcast to " + shapeText(out.shape));
    if (rhs.type != in.type)
      return fail(info.label, "operands of " + io::typeName(in.type) + " and " +
                                  io::typeName(rhs.type));
    if (sim::opClassOf(kernel.opcode()) != sim::OpClass::VectorBinary)
      return fail(info.label, "opcode " + std::to_string(kernel.opcode()) +
                                  " is not a two-operand operation");
    return checkTypes(info, kernel.opcode(), in.type) && resultType();
  }
  case hetx::PLAN_UNARY:
    if (sim::opClassOf(kernel.opcode()) != sim::OpClass::VectorUnary ||
        kernel.opcode() == hetx::V_CAST)
      return fail(info.label, "opcode " + std::to_string(kernel.opcode()) +
                                  " is not a one-operand operation");
    return sameShape(in) && checkTypes(info, kernel.opcode(), in.type) &&
           resultType();
  case hetx::PLAN_CAST:
    return sameShape(in) &&
           checkTypes(info, hetx::V_CAST, out.type, in.type, &kernel);
  case hetx::PLAN_SELECT: {
    const PlanBufferInfo &a = buffer(info.operands[1]),
                         &b = buffer(info.operands[2]);
    if (!broadcasts(in.shape, out.shape) || !broadcasts(a.shape, out.shape) ||
        !broadcasts(b.shape, out.shape))
      return fail(info.label,
                  "operands do not broadcast to " + shapeText(out.shape));
    if (in.type != io::ElementType::Bool || a.type != out.type ||
        b.type != out.type)
      return fail(info.label, "selects by " + io::typeName(in.type) +
                                  " between " + io::typeName(a.type) + " and " +
                                  io::typeName(b.type) + " into " +
                                  io::typeName(out.type));
    info.op = sim::Op();
    info.op.inType = info.op.outType = out.type;
    return true;
  }
  case hetx::PLAN_SOFTMAX:
    return sameShape(in) && checkTypes(info, hetx::V_EXP, in.type) &&
           resultType() &&
           (io::isArithmeticFloat(in.type) ||
            fail(info.label, "softmax of " + io::typeName(in.type)));
  case hetx::PLAN_REDUCE: {
    std::vector<int64_t> want = in.shape;
    if (!want.empty())
      want.back() = 1;
    if (in.shape.empty() || out.shape != want)
      return fail(info.label, "reduces " + shapeText(in.shape) + " into " +
                                  shapeText(out.shape));
    if (kernel.opcode() != hetx::V_REDUCE_SUM &&
        kernel.opcode() != hetx::V_REDUCE_MAX &&
        kernel.opcode() != hetx::V_REDUCE_MIN)
      return fail(info.label, "opcode " + std::to_string(kernel.opcode()) +
                                  " is not a reduction");
    return checkTypes(info, kernel.opcode(), in.type) && resultType();
  }
  case hetx::PLAN_TRANSPOSE: {
    size_t rank = in.shape.size();
    std::vector<bool> seen(rank, false);
    bool valid = size_t(kernel.perm_size()) == rank && out.shape.size() == rank;
    for (size_t i = 0; valid && i < rank; ++i) {
      int64_t d = kernel.perm(int(i));
      valid = d >= 0 && size_t(d) < rank && !seen[size_t(d)] &&
              out.shape[i] == in.shape[size_t(d)];
      if (valid)
        seen[size_t(d)] = true;
      info.perm.push_back(d);
    }
    if (!valid || in.type != out.type)
      return fail(info.label, "does not permute " + shapeText(in.shape) +
                                  " into " + shapeText(out.shape));
    info.op.inType = info.op.outType = out.type;
    return true;
  }
  case hetx::PLAN_GATHER:
    return checkGather(kernel, info);
  case hetx::PLAN_DEPTHWISE_CONV:
    return checkDepthwiseConv(kernel, info);
  case hetx::PLAN_DEPTHWISE_CONV_CF:
    return checkDepthwiseConvCf(kernel, info);
  case hetx::PLAN_CONV:
    return checkConv(kernel, info);
  case hetx::PLAN_GATHER_ROWS:
  case hetx::PLAN_SCATTER_ROWS: {
    bool gather = kernel.kind() == hetx::PLAN_GATHER_ROWS;
    const PlanBufferInfo &table = gather ? in : out;
    const PlanBufferInfo &rows = gather ? out : in;
    const PlanBufferInfo &indices = buffer(info.operands[1]);
    if (indices.type != io::ElementType::I32)
      return fail(info.label, "row indices of " + io::typeName(indices.type) +
                                  " (they are i32 lanes)");
    if (table.shape.empty() || (table.shape[0] == 0 && indices.elements))
      return fail(info.label, "a table of " + shapeText(table.shape) +
                                  " has no rows to index");
    uint64_t row =
        table.shape[0] ? table.elements / uint64_t(table.shape[0]) : 0;
    if (rows.type != table.type || rows.elements != indices.elements * row)
      return fail(info.label, std::to_string(indices.elements) + " rows of " +
                                  shapeText(table.shape) + " do not make " +
                                  shapeText(rows.shape) + " of " +
                                  io::typeName(rows.type));
    info.op.inType = info.op.outType = table.type;
    return true;
  }
  default:
    return false;
  }
}

bool PlanChecker::checkKernels() {
  state.kernels.resize(size_t(plan.kernels_size()));
  for (int i = 0; i < plan.kernels_size(); ++i) {
    PlanKernelInfo &info = state.kernels[size_t(i)];
    if (!checkKernel(size_t(i), plan.kernels(i), info))
      return false;
    const PlanBufferInfo &out = buffer(info.result);
    bool whole = info.kind == hetx::PLAN_GATHER
                     ? info.firstElement == 0 && info.elements == out.elements
                     : info.kind != hetx::PLAN_SCATTER_ROWS;
    info.fills = whole && out.elements == buffer(out.root).elements;
  }
  return true;
}

bool PlanChecker::checkOutputs() {
  state.outputs.assign(size_t(artifact.outputs_size()), 0);
  std::vector<bool> bound(state.outputs.size(), false);
  for (const hetx::PlanBinding &binding : plan.outputs()) {
    auto it = std::find_if(artifact.outputs().begin(), artifact.outputs().end(),
                           [&](const hetx::TensorBinding &b) {
                             return b.name() == binding.name();
                           });
    std::string name = "output '" + binding.name() + "'";
    if (it == artifact.outputs().end())
      return fail(name, "is not an output of the artifact");
    size_t index = size_t(it - artifact.outputs().begin());
    if (bound[index])
      return fail(name, "is bound twice");
    if (binding.buffer() >= state.buffers.size())
      return fail(name, "buffer #" + std::to_string(binding.buffer()) +
                            " does not exist");
    const PlanBufferInfo &b = buffer(binding.buffer());
    std::vector<int64_t> shape(it->shape().begin(), it->shape().end());
    std::optional<io::ElementType> type = sim::elementTypeOf(it->dtype());
    uint64_t elements = 0;
    if (!type || laneTypeOf(*type) != b.type ||
        !io::elementCount(shape, elements) || elements != b.elements)
      return fail(name, "is bound as " + shapeText(shape) + ", but " +
                            bufferName(binding.buffer()) + " holds " +
                            shapeText(b.shape) + " of " + io::typeName(b.type));
    bound[index] = true;
    state.outputs[index] = binding.buffer();
  }
  for (size_t i = 0; i < bound.size(); ++i)
    if (!bound[i])
      return fail("output '" + artifact.outputs(int(i)).name() + "'",
                  "has no buffer in the plan");
  return true;
}

bool PlanChecker::checkLiveness() {
  // Each root lives from its first write (inputs: from the start) to its
  // last use (outputs: to the end).
  size_t count = state.buffers.size(), kernels = state.kernels.size();
  constexpr size_t kNever = std::numeric_limits<size_t>::max();
  std::vector<size_t> first(count, kNever), last(count, 0);
  for (size_t i = 0; i < count; ++i)
    if (state.buffers[i].origin == PlanBufferInfo::Origin::Input)
      first[i] = 0;
  for (size_t k = 0; k < kernels; ++k) {
    const PlanKernelInfo &kernel = state.kernels[k];
    auto use = [&](uint32_t b) {
      uint32_t root = buffer(b).root;
      last[root] = std::max(last[root], k);
      return root;
    };
    std::vector<uint32_t> reads(kernel.operands);
    for (int row : {kernel.bias, kernel.scale})
      if (row >= 0)
        reads.push_back(uint32_t(row));
    for (uint32_t operand : reads) {
      uint32_t root = use(operand);
      if (first[root] == kNever &&
          buffer(root).origin == PlanBufferInfo::Origin::Scratch)
        return fail(kernel.label, "reads " + bufferName(operand) +
                                      " before any kernel writes it");
    }
    uint32_t root = use(kernel.result);
    first[root] = std::min(first[root], k);
  }
  for (uint32_t b : state.outputs) {
    uint32_t root = buffer(b).root;
    if (first[root] == kNever &&
        buffer(root).origin == PlanBufferInfo::Origin::Scratch)
      return fail(bufferName(b), "is an output no kernel writes");
    last[root] = kNever;
  }
  std::vector<std::vector<uint32_t>> starts(kernels + 1);
  uint64_t live = 0, peak = 0;
  for (size_t i = 0; i < count; ++i) {
    const PlanBufferInfo &b = state.buffers[i];
    if (b.root != i || b.origin == PlanBufferInfo::Origin::Constant ||
        first[i] == kNever)
      continue;
    starts[first[i]].push_back(uint32_t(i));
    if (last[i] != kNever && last[i] < kernels)
      state.kernels[last[i]].frees.push_back(uint32_t(i));
  }
  for (size_t k = 0; k < kernels; ++k) {
    for (uint32_t b : starts[k])
      live += state.buffers[b].elements;
    peak = std::max(peak, live);
    for (uint32_t b : state.kernels[k].frees)
      live -= state.buffers[b].elements;
  }
  if (peak > limit)
    return fail("buffers", "hold " + std::to_string(peak) +
                               " elements at once, more than the chip's "
                               "SRAM (" +
                               std::to_string(limit) + ")");
  return true;
}

} // namespace

std::unique_ptr<Plan> load(const hetx::Artifact &artifact,
                           const chip::ChipSpec &chip, std::string &error) {
  if (!hetc::artifact::checkChipMatch(artifact, chip, error))
    return nullptr;
  if (!artifact.has_kernel_plan()) {
    error = "the artifact holds no kernel plan, which backends other than "
            "the chip run: it was compiled from hisa-level MLIR; compile the "
            "model from ONNX or htile";
    return nullptr;
  }
  auto state = std::make_unique<Plan>(artifact);
  if (!PlanChecker(artifact, chip, *state, error).check())
    return nullptr;
  return state;
}

} // namespace hetc::plan
