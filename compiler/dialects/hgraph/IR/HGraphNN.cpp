//===- HGraphNN.cpp - Normalisation, convolution, quantisation verifiers ===//

#include "compiler/dialects/hgraph/IR/HGraph.h"
#include "compiler/dialects/hgraph/IR/HGraphFold.h"

#include "compiler/dialects/common/DepthwiseWindow.h"

using namespace mlir;
using namespace hetc::hgraph;

namespace {

LogicalResult verifyAttrSize(Operation *op, StringRef name,
                             ArrayRef<int64_t> values, size_t expected) {
  if (values.size() != expected)
    return op->emitOpError()
           << name << " needs " << expected << " entries, got "
           << values.size();
  return success();
}

/// Common checks of conv-like ops: ranks, channel counts, attribute sizes.
LogicalResult verifyWindowed(Operation *op, ShapedType in, ShapedType out,
                             ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                             ArrayRef<int64_t> dilations) {
  if (in.getRank() < 3)
    return op->emitOpError("input must be N x C x D1 x ..., got rank ")
           << in.getRank();
  if (out.getRank() != in.getRank())
    return op->emitOpError("result rank ")
           << out.getRank() << " differs from the input's " << in.getRank();
  size_t spatial = in.getRank() - 2;
  if (failed(verifyAttrSize(op, "strides", strides, spatial)) ||
      failed(verifyAttrSize(op, "pads", pads, 2 * spatial)) ||
      failed(verifyAttrSize(op, "dilations", dilations, spatial)))
    return failure();
  if (llvm::any_of(strides, [](int64_t s) { return s <= 0; }) ||
      llvm::any_of(dilations, [](int64_t s) { return s <= 0; }))
    return op->emitOpError("strides and dilations must be positive");
  return success();
}

} // namespace

LogicalResult LogSoftmaxOp::verify() {
  int64_t rank = getType().getRank(), axis = int64_t(getAxis());
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << rank;
  return success();
}

template <typename NormOp>
static LogicalResult verifyNorm(NormOp op) {
  int64_t rank = op.getType().getRank(), axis = int64_t(op.getAxis());
  if (op.getType() != op.getInput().getType())
    return op.emitOpError("result type must equal the input type");
  if (axis < 0 || axis >= rank)
    return op.emitOpError("axis ") << axis << " is out of range for rank "
                                   << rank;
  return success();
}

LogicalResult LayerNormOp::verify() { return verifyNorm(*this); }
LogicalResult RMSNormOp::verify() {
  if (getBias())
    return emitOpError("takes no bias");
  return verifyNorm(*this);
}

LogicalResult BatchNormOp::verify() {
  ShapedType in = getInput().getType();
  if (in.getRank() < 2)
    return emitOpError("input must be N x C x ..., got rank ") << in.getRank();
  if (getType() != in)
    return emitOpError("result type must equal the input type");
  int64_t channels = in.getDimSize(1);
  for (Value v : {getScale(), getBias(), getMean(), getVariance()}) {
    auto type = cast<ShapedType>(v.getType());
    if (type.getRank() != 1 || type.getDimSize(0) != channels)
      return emitOpError("scale, bias, mean and variance must have ")
             << channels << " values (one per channel), got " << type;
  }
  return success();
}

LogicalResult ConvOp::verify() {
  ShapedType in = getInput().getType(), w = getWeight().getType();
  if (failed(verifyWindowed(*this, in, getType(), getStrides(), getPads(),
                            getDilations())))
    return failure();
  int64_t group = int64_t(getGroup());
  if (w.getRank() != in.getRank())
    return emitOpError("weight rank ") << w.getRank() << " differs from the "
                                       << "input's " << in.getRank();
  if (group <= 0 || in.getDimSize(1) != w.getDimSize(1) * group ||
      w.getDimSize(0) % group != 0)
    return emitOpError("channels do not match: input has ")
           << in.getDimSize(1) << ", weight " << shapeStr(w.getShape())
           << ", group " << group;
  if (getType().getDimSize(1) != w.getDimSize(0))
    return emitOpError("result has ") << getType().getDimSize(1)
                                      << " channels, the weight "
                                      << w.getDimSize(0);
  if (Value bias = getBias()) {
    auto type = cast<ShapedType>(bias.getType());
    if (type.getRank() != 1 || type.getDimSize(0) != w.getDimSize(0))
      return emitOpError("bias must have ")
             << w.getDimSize(0) << " values (one per output channel), got "
             << type;
  }
  Type x = in.getElementType(), y = getType().getElementType();
  if (isa<IntegerType>(x) || isa<IntegerType>(y)) {
    auto byte = dyn_cast<IntegerType>(x);
    if (!byte || byte.getWidth() != 8 ||
        !w.getElementType().isSignlessInteger(8) ||
        !y.isSignlessInteger(32) || getBias())
      return emitOpError("an integer convolution takes an i8 or ui8 input "
                         "and an i8 weight, gives i32 and has no bias; got ")
             << x << " by " << w.getElementType() << " to " << y
             << (getBias() ? " with a bias" : "");
  }
  return success();
}

LogicalResult DepthwiseConvNhwcOp::verify() {
  ShapedType in = getInput().getType(), w = getWeight().getType();
  ShapedType out = getType();
  if (in.getRank() != 4 || in.getDimSize(0) != 1 || out.getRank() != 4 ||
      out.getDimSize(0) != 1)
    return emitOpError("input and result must be 1 x H x W x C, got ")
           << shapeStr(in.getShape()) << " and "
           << shapeStr(out.getShape());
  int64_t channels = in.getDimSize(3);
  if (w.getRank() != 3 || w.getDimSize(2) != channels ||
      out.getDimSize(3) != channels)
    return emitOpError("weight must be kh x kw x ")
           << channels << " and the result have " << channels
           << " channels, got weight " << shapeStr(w.getShape())
           << " and result " << shapeStr(out.getShape());
  if (Value bias = getBias()) {
    auto type = cast<ShapedType>(bias.getType());
    if (type.getRank() != 1 || type.getDimSize(0) != channels)
      return emitOpError("bias must have ")
             << channels << " values, got " << shapeStr(type.getShape());
  }
  for (Value v : {getWeight(), getBias(), getResult()})
    if (v && cast<ShapedType>(v.getType()).getElementType() !=
                 in.getElementType())
      return emitOpError("input, weight, bias and result must have one "
                         "element type");
  std::string mismatch = hetc::depthwise::windowMismatch(
      in.getShape().slice(1, 2), out.getShape().slice(1, 2),
      w.getShape().take_front(2), getStrides(), getPads(), getDilations());
  if (!mismatch.empty())
    return emitOpError(mismatch);
  return success();
}

LogicalResult ConvTransposeOp::verify() {
  ShapedType in = getInput().getType(), w = getWeight().getType();
  if (failed(verifyWindowed(*this, in, getType(), getStrides(), getPads(),
                            getDilations())) ||
      failed(verifyAttrSize(*this, "output_padding", getOutputPadding(),
                            in.getRank() - 2)))
    return failure();
  int64_t group = int64_t(getGroup());
  if (w.getRank() != in.getRank() || group <= 0 ||
      w.getDimSize(0) != in.getDimSize(1) ||
      getType().getDimSize(1) != w.getDimSize(1) * group)
    return emitOpError("channels do not match: input ")
           << shapeStr(in.getShape()) << ", weight " << shapeStr(w.getShape())
           << ", group " << group << ", result "
           << shapeStr(getType().getShape());
  return success();
}

template <typename PoolOp>
static LogicalResult verifyPool(PoolOp op) {
  ShapedType in = op.getInput().getType();
  if (failed(verifyWindowed(op, in, op.getType(), op.getStrides(),
                            op.getPads(), op.getDilations())) ||
      failed(verifyAttrSize(op, "kernel_shape", op.getKernelShape(),
                            in.getRank() - 2)))
    return failure();
  if (op.getType().getDimSize(0) != in.getDimSize(0) ||
      op.getType().getDimSize(1) != in.getDimSize(1))
    return op.emitOpError("pooling keeps N and C");
  return success();
}

LogicalResult MaxPoolOp::verify() { return verifyPool(*this); }
LogicalResult AveragePoolOp::verify() { return verifyPool(*this); }

LogicalResult ResizeOp::verify() {
  int64_t rank = getType().getRank();
  if (getScales().size() != size_t(rank))
    return emitOpError("scales needs one entry per dimension (") << rank << ")";
  for (double scale : getScales())
    if (!(scale > 0))
      return emitOpError("scales must be positive, got ") << scale;
  if (getInput().getType().getElementType() != getType().getElementType())
    return emitOpError("input and result element types differ");
  StringRef mode = getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOpError("mode must be nearest, linear or cubic, got ") << mode;
  StringRef ctm = getCoordinateTransformationMode();
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_crop_and_resize"},
                          ctm))
    return emitOpError("unknown coordinate_transformation_mode '") << ctm << "'";
  StringRef nearest = getNearestMode();
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          nearest))
    return emitOpError("unknown nearest_mode '") << nearest << "'";
  if (ctm == "tf_crop_and_resize" &&
      (!getRoi() || getRoi()->size() != size_t(2 * rank)))
    return emitOpError("tf_crop_and_resize needs a roi of ")
           << 2 * rank << " values (a start and an end per dimension)";
  return success();
}

template <typename QuantOp>
static LogicalResult verifyQuant(QuantOp op) {
  ShapedType in = op.getInput().getType();
  auto scale = cast<ShapedType>(op.getScale().getType());
  if (in.getShape() != op.getType().getShape())
    return op.emitOpError("result shape must equal the input shape");
  if (scale.getRank() > 1 ||
      (scale.getRank() == 1 && scale.getDimSize(0) != 1 &&
       (int64_t(op.getAxis()) >= in.getRank() ||
        scale.getDimSize(0) != in.getDimSize(int64_t(op.getAxis())))))
    return op.emitOpError("scale must be a scalar or hold one value per "
                          "slice along axis ")
           << int64_t(op.getAxis());
  // A per-tensor scale and zero point may be a scalar and a one-element
  // vector (ONNX's float8 and 4-bit tests pair them so).
  if (Value z = op.getZeroPoint()) {
    auto zero = cast<ShapedType>(z.getType());
    bool perTensor = zero.getNumElements() == 1 && scale.getNumElements() == 1;
    if (zero.getShape() != scale.getShape() && !perTensor)
      return op.emitOpError("zero point and scale shapes differ");
  }
  return success();
}

LogicalResult QuantizeLinearOp::verify() { return verifyQuant(*this); }
LogicalResult DequantizeLinearOp::verify() { return verifyQuant(*this); }

LogicalResult MatMulIntegerOp::verify() {
  if (!getType().getElementType().isInteger(32))
    return emitOpError("result must hold i32");
  if (getLhs().getType().getRank() < 1 || getRhs().getType().getRank() < 1)
    return emitOpError("operands must have rank >= 1");
  return success();
}
