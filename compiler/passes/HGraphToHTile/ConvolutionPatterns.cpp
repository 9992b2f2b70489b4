//===- ConvolutionPatterns.cpp - Convolution and pooling of hgraph to htile
//---===//
//
// Convolutions as gathered windows times weight rows on the matrix unit
// (depthwise ones as scaled sums on the vector unit: separably, or per
// kernel element; the kernel plan runs either whole, as one kernel), a
// transposed convolution that spreads each element into a block as a product
// and a move, and max/average pooling as window reductions. Their results are
// held as [N, C, positions]: rows of a whole feature map, not of its last axis.
// A channels-last depthwise convolution is one htile.depthwise_conv over rows
// of channels.
//
//===----------------------------------------------------------------------===//

#include "compiler/passes/HGraphToHTile/Lowering.h"

#include "compiler/passes/DecomposePatterns.h"
#include "compiler/passes/DepthwiseForms.h"
#include "compiler/passes/WindowIndices.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"
#include <cstring>
#include <limits>

using namespace mlir;
using namespace hetc;
using namespace hetc::tiling;

namespace {

/// The window of a pool or convolution; `kernel` is the spatial kernel.
template <typename OpTy>
gather::Window windowOf(OpTy op, ArrayRef<int64_t> kernel) {
  gather::Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides.assign(op.getStrides().begin(), op.getStrides().end());
  w.pads.assign(op.getPads().begin(), op.getPads().end());
  w.dilations.assign(op.getDilations().begin(), op.getDilations().end());
  return w;
}

/// One kernel element's move along an axis (gather::axisTaps) of `from`,
/// which holds N x C planes of `perPlane` x `inLength` x `inner` elements
/// in order, into a new [N, C, perPlane * outLength * inner] buffer.
/// Positions outside `from` read `fill` where one is given (a -inf
/// constant for a maximum), else zero. A move that would copy `from` in
/// order is not made: `from` is returned, regrouped to that shape.
Value axisMove(Location loc, Value from, int64_t batch, int64_t channels,
               int64_t perPlane, int64_t inLength, int64_t inner,
               int64_t outLength, int64_t stride, int64_t start, Value fill,
               const KernelBuilder &kernels) {
  SmallVector<int64_t> shape{batch, channels, perPlane * outLength * inner};
  if (depthwise::tapIsIdentity(inLength, outLength, stride, start))
    return kernels.regroup(loc, from, shape);
  gather::Indices indices = gather::axisTaps(
      batch * channels * perPlane, inLength, inner, outLength, stride, start);
  SmallVector<Value> inputs{from};
  if (fill && llvm::is_contained(indices, -1)) {
    int64_t fillIndex = cast<MemRefType>(from.getType()).getNumElements();
    for (int64_t &i : indices)
      if (i < 0)
        i = fillIndex;
    inputs.push_back(fill);
  }
  Value taken =
      kernels.alloc(MemRefType::get(shape, kernels.builder.getF32Type()), loc);
  kernels.move(loc, inputs, taken, indices);
  return taken;
}

/// A 2-D pool's windows reduced separably: per kernel column, the input
/// columns it meets at every output column ([N, C, H_in * W_out]),
/// combined across the columns; per kernel row, the rows of that it meets
/// at every output row, combined across the rows into [N, C, positions].
/// Positions outside the input read `fill` (a -inf constant for a
/// maximum) or zero. A move that would copy its input in order is not
/// made. kw + kh moves replace kh * kw, and the combines run kw - 1 times
/// on the column maps and kh - 1 on the result.
Value separablePool(Location loc, ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                    const gather::Window &w, Value input, Value fill,
                    htile::BinaryKind combine, const KernelBuilder &kernels) {
  int64_t batch = in[0], channels = in[1];
  int64_t hIn = in[2], wIn = in[3], hOut = out[2], wOut = out[3];
  Value columns;
  for (int64_t kx = 0; kx < w.kernel[1]; ++kx) {
    Value taken =
        axisMove(loc, input, batch, channels, hIn, wIn, 1, wOut, w.strides[1],
                 kx * w.dilations[1] - w.pads[1], fill, kernels);
    columns = columns ? kernels.combine(loc, combine, columns, taken) : taken;
  }
  Value result;
  for (int64_t ky = 0; ky < w.kernel[0]; ++ky) {
    Value taken =
        axisMove(loc, columns, batch, channels, 1, hIn, wOut, hOut,
                 w.strides[0], ky * w.dilations[0] - w.pads[0], fill, kernels);
    result = result ? kernels.combine(loc, combine, result, taken) : taken;
  }
  return result;
}

template <typename PoolOp>
LogicalResult lowerPool(PoolOp op, bool max, const KernelBuilder &kernels) {
  // The windows' elements (positions outside the input are -inf for a
  // maximum and zero for a sum) are reduced, by rows, separably or per
  // kernel element (below), and an average divides by the window's
  // element count.
  // The windows, fills and counts are f32; an f16 or bf16 pool, and a
  // maximum of 8-bit integers (exact in f32), is computed in f32 between
  // two casts. Any other type is refused here, not misread.
  Type f32 = kernels.builder.getF32Type();
  Type element = elementOf(op.getInput());
  if (element != elementOf(op.getResult()) ||
      !(element.isF32() || element.isF16() || element.isBF16() ||
        (max && isByte(element))))
    return op.emitError(max ? "max pooling" : "average pooling")
           << " on " << element
           << " is not supported on the chip yet; it runs on f32, f16 and "
              "bf16"
           << (max ? ", i8 and ui8" : "") << " (cast around the pool)";
  Location loc = op.getLoc();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  gather::Window w = windowOf(op, op.getKernelShape());
  // Products of attribute values: computed without overflow.
  int64_t kernel = 1, count = 0;
  bool overflow = false;
  for (int64_t extent : w.kernel)
    overflow |= extent < 0 || llvm::MulOverflow(kernel, extent, kernel);
  overflow |= llvm::MulOverflow(op.getType().getNumElements(), kernel, count);
  if (failed(kernels.checkMovement(op, overflow ? UINT64_MAX : uint64_t(count),
                                   "pooling over windows of " + Twine(kernel) +
                                       " elements into " +
                                       typeString(op.getType()))))
    return failure();
  // The result is held as [N, C, positions] (a whole feature map a row).
  int64_t positions = 1;
  for (int64_t d : out.drop_front(2))
    positions *= d;
  SmallVector<int64_t> flat(out.take_front(2));
  flat.push_back(positions);
  auto flatType = MemRefType::get(flat, f32);
  SmallVector<int64_t> windowsShape(flat);
  windowsShape.push_back(kernel);
  Value held = kernels.held(op.getInput());
  if (element != f32)
    held = kernels.castKernel(loc, held, f32);
  Value negInf;
  auto fill = [&]() {
    if (!negInf)
      negInf = kernels.constantBuffer(
          loc, {1}, {-std::numeric_limits<float>::infinity()});
    return negInf;
  };
  // Three ways: each window gathered into a row and the rows reduced (one
  // vector per window when the window is narrower than a vector), where
  // that takes no more vectors than three output-sized buffers; else
  // separably for 2-D windows (separablePool); else per kernel element,
  // the input elements it meets at every output position gathered in the
  // output's shape and combined elementwise.
  auto vectors = [&](ArrayRef<int64_t> shape) {
    return layoutOf(shape, kernels.chip.lanes()).vectors();
  };
  htile::BinaryKind combine =
      max ? htile::BinaryKind::max : htile::BinaryKind::add;
  Value result;
  if (vectors(windowsShape) > 3 * vectors(flat) && w.kernel.size() == 2) {
    result = separablePool(loc, in, out, w, held, max ? fill() : Value(),
                           combine, kernels);
  } else {
    int64_t fillIndex = op.getInput().getType().getNumElements();
    gather::Indices indices =
        gather::poolWindows(in, w, out, max ? fillIndex : -1);
    SmallVector<Value> inputs{held};
    if (max && llvm::is_contained(indices, fillIndex))
      inputs.push_back(fill());
    if (vectors(windowsShape) <= 3 * vectors(flat)) {
      Value windows = kernels.alloc(MemRefType::get(windowsShape, f32), loc);
      kernels.move(loc, inputs, windows, indices);
      // [N, C, 1, positions]: the windows' results in order.
      result = kernels.reduceInnermost(
          loc, max ? hisa::VReduceKind::max : hisa::VReduceKind::sum,
          /*mean=*/false, windows, /*packed=*/positions > 1);
    } else {
      int64_t elements = op.getType().getNumElements();
      gather::Indices tap(elements);
      for (int64_t e = 0; e < kernel; ++e) {
        for (int64_t p = 0; p < elements; ++p)
          tap[p] = indices[p * kernel + e];
        Value taken = kernels.alloc(flatType, loc);
        kernels.move(loc, inputs, taken, tap);
        result = result ? kernels.combine(loc, combine, result, taken) : taken;
      }
    }
  }
  if (!max) {
    std::vector<float> counts =
        gather::windowCounts(in, w, out, op.getCountIncludePad());
    // Every window of a feature map, by position; the same for each map.
    Value divisor = kernels.constantBuffer(loc, {positions}, counts);
    Value quotient = kernels.alloc(cast<MemRefType>(result.getType()), loc);
    htile::BinaryOp::create(kernels.builder, loc, htile::BinaryKind::div,
                            result, divisor, quotient);
    result = quotient;
  }
  if (element != f32)
    result = kernels.castKernel(loc, result, element);
  kernels.map(op.getResult(), result);
  return success();
}

/// The values of the float constant `dense`, as f32.
std::vector<float> floatsOf(DenseElementsAttr dense) {
  std::vector<float> values;
  values.reserve(size_t(dense.getNumElements()));
  for (APFloat value : dense.getValues<APFloat>()) {
    bool lost;
    value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    values.push_back(value.convertToFloat());
  }
  return values;
}

/// The convolution bias `bias` ([channels]) as an f32 [channels, 1]
/// column.
Value biasColumn(Location loc, Value bias, int64_t channels,
                 const KernelBuilder &kernels) {
  // An f16 or bf16 bias is added in f32, the type of the sums.
  Type f32 = kernels.builder.getF32Type();
  Value column;
  DenseElementsAttr values;
  if (matchPattern(bias, m_Constant(&values)))
    column = kernels.constantBuffer(loc, {channels, 1}, floatsOf(values));
  else
    column = kernels.bufferAs(bias, {channels, 1});
  if (elementOf(column) != f32)
    column = kernels.castKernel(loc, column, f32);
  return column;
}

/// `result` ([N, channels, positions]) plus the convolution bias `bias`
/// ([channels]) of each channel.
Value addChannelBias(Location loc, Value result, Value bias, int64_t channels,
                     const KernelBuilder &kernels) {
  return kernels.combine(loc, htile::BinaryKind::add, result,
                         biasColumn(loc, bias, channels, kernels));
}

/// The f32 sums `sum` of `op`, cast to its result's type when that is f16
/// or bf16.
Value narrowResult(hgraph::ConvOp op, Value sum, const KernelBuilder &kernels) {
  Type type = op.getType().getElementType();
  return type == elementOf(sum) ? sum
                                : kernels.castKernel(op.getLoc(), sum, type);
}

/// The weights of kernel element `t` of every channel, as a [C, 1] column.
Value weightColumn(Location loc, ArrayRef<float> values, int64_t channels,
                   int64_t kernel, int64_t t, const KernelBuilder &kernels) {
  SmallVector<float> column(channels);
  for (int64_t c = 0; c < channels; ++c)
    column[c] = values[c * kernel + t];
  return kernels.constantBuffer(loc, {channels, 1}, column);
}

/// The scaled sums of a 2-D depthwise convolution taken separably: per
/// kernel column kx, the input columns it meets at every output column
/// ([N, C, H_in, W_out]), moved once; per kernel row ky, those scaled by
/// the row's weights and summed, then the rows the kernel row meets at
/// every output row moved into [N, C, H_out, W_out] and summed. A move
/// that would copy its input in order (the centre column and row of a
/// stride-1 'same' window) is not made.
Value separableSums(hgraph::ConvOp op, const gather::Window &w,
                    ArrayRef<float> values, Value input,
                    SmallVectorImpl<Value> &taps,
                    const KernelBuilder &kernels) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  int64_t batch = in[0], channels = in[1];
  int64_t hIn = in[2], wIn = in[3], hOut = out[2], wOut = out[3];
  int64_t kh = w.kernel[0], kw = w.kernel[1];
  SmallVector<Value> columns;
  for (int64_t kx = 0; kx < kw; ++kx)
    columns.push_back(axisMove(loc, input, batch, channels, hIn, wIn, 1, wOut,
                               w.strides[1], kx * w.dilations[1] - w.pads[1],
                               Value(), kernels));
  Value sum;
  for (int64_t ky = 0; ky < kh; ++ky) {
    Value part;
    for (int64_t kx = 0; kx < kw; ++kx) {
      taps.push_back(
          weightColumn(loc, values, channels, kh * kw, ky * kw + kx, kernels));
      Value scaled = kernels.combine(loc, htile::BinaryKind::mul, columns[kx],
                                     taps.back());
      part = part ? kernels.combine(loc, htile::BinaryKind::add, part, scaled)
                  : scaled;
    }
    Value rows =
        axisMove(loc, part, batch, channels, 1, hIn, wOut, hOut, w.strides[0],
                 ky * w.dilations[0] - w.pads[0], Value(), kernels);
    sum = sum ? kernels.combine(loc, htile::BinaryKind::add, sum, rows) : rows;
  }
  return sum;
}

/// The scaled sums of a depthwise convolution taken per kernel element:
/// the input elements element t meets at every output position, gathered
/// as [N, C, positions] (zero in the padding), scaled by the channel's
/// weight t and summed over t. Nothing is materialised beyond three
/// output-sized buffers.
Value perElementSums(hgraph::ConvOp op, const gather::Window &w,
                     ArrayRef<float> values, Value input, int64_t kernel,
                     int64_t positions, SmallVectorImpl<Value> &taps,
                     const KernelBuilder &kernels) {
  Location loc = op.getLoc();
  Type f32 = kernels.builder.getF32Type();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  int64_t batch = in[0], channels = in[1];
  int64_t inPlane = 1;
  for (int64_t d : in.drop_front(2))
    inPlane *= d;
  // plane[t * positions + p]: the element of an input plane that kernel
  // element t meets at output position p, or -1 in the padding.
  gather::Indices plane = gather::convColumns(in, w, out, 0, 0, 1);
  auto planes = MemRefType::get({batch, channels, positions}, f32);
  Value sum;
  gather::Indices map(size_t(batch * channels * positions));
  for (int64_t t = 0; t < kernel; ++t) {
    for (int64_t nc = 0; nc < batch * channels; ++nc)
      for (int64_t p = 0; p < positions; ++p) {
        int64_t e = plane[t * positions + p];
        map[nc * positions + p] = e < 0 ? -1 : nc * inPlane + e;
      }
    Value taken = kernels.alloc(planes, loc);
    kernels.move(loc, ValueRange{input}, taken, map);
    taps.push_back(weightColumn(loc, values, channels, kernel, t, kernels));
    Value scaled =
        kernels.combine(loc, htile::BinaryKind::mul, taken, taps.back());
    sum = sum ? kernels.combine(loc, htile::BinaryKind::add, sum, scaled)
              : scaled;
  }
  return sum;
}

/// A convolution with one channel per group and constant weights
/// (depthwise), as scaled sums on the vector unit: separably where that
/// applies (depthwise::separable), else per kernel element. The matrix
/// unit, which would multiply 1 x K by K x positions per channel, is not
/// used.
LogicalResult lowerDepthwiseConv(hgraph::ConvOp op, const gather::Window &w,
                                 DenseElementsAttr weights, int64_t kernel,
                                 int64_t positions,
                                 const KernelBuilder &kernels) {
  Location loc = op.getLoc();
  Type f32 = kernels.builder.getF32Type();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  std::vector<float> values = floatsOf(weights);
  // An f16 or bf16 input is scaled and summed in f32.
  Value input = kernels.held(op.getInput());
  if (elementOf(input) != f32)
    input = kernels.castKernel(loc, input, f32);
  SmallVector<Value> taps;
  Value sum = depthwise::separable(w.kernel, w.strides)
                  ? separableSums(op, w, values, input, taps, kernels)
                  : perElementSums(op, w, values, input, kernel, positions,
                                   taps, kernels);
  Value column;
  if (Value bias = op.getBias()) {
    column = biasColumn(loc, bias, in[1], kernels);
    sum = kernels.combine(loc, htile::BinaryKind::add, sum, column);
  }
  // The kernel plan runs the convolution as one kernel instead.
  if (w.kernel.size() <= 3)
    htile::PlanDepthwiseConvOp::create(
        kernels.builder, loc, input, taps, sum, column,
        kernels.builder.getDenseI64ArrayAttr(in),
        kernels.builder.getDenseI64ArrayAttr(w.kernel),
        kernels.builder.getDenseI64ArrayAttr(w.strides),
        kernels.builder.getDenseI64ArrayAttr(w.pads),
        kernels.builder.getDenseI64ArrayAttr(w.dilations));
  // [N, C, positions] holds the result's elements in order.
  kernels.map(op.getResult(), narrowResult(op, sum, kernels));
  return success();
}

LogicalResult lowerConv(hgraph::ConvOp op, const KernelBuilder &kernels) {
  // Per batch element and group: the input's windows are gathered as
  // columns ([C/g * K, positions]) and multiplied by the weight rows of
  // the group ([M/g, C/g * K]), which gives the output channels in NCHW
  // order directly; the bias is added per channel.
  Location loc = op.getLoc();
  Type f32 = kernels.builder.getF32Type();
  // The windows and weights are f32, or f16 or bf16 both (a model in
  // half precision, or --precision), multiplied into f32 sums; the bias
  // and the result are f32 or the input's type. Any other type is refused
  // here, not misread.
  // An integer convolution (i8 or ui8 by i8, hgraph's verifier has
  // checked) multiplies at the planes' 8-bit rate into exact i32 sums.
  Type element = elementOf(op.getInput());
  bool narrow = element.isF16() || element.isBF16();
  bool integer = isa<IntegerType>(elementOf(op.getResult()));
  // The input's type but for an integer convolution of ui8 by i8.
  Type weightElement = elementOf(op.getWeight());
  Type sumType = integer ? elementOf(op.getResult()) : f32;
  for (Value v : {op.getInput(), op.getWeight(), op.getBias(), op.getResult()})
    if (!integer && v && elementOf(v) != f32 &&
        !(narrow && elementOf(v) == element))
      return op.emitError("convolution on ")
             << elementOf(v)
             << " is not supported on the chip yet; it runs on f32, f16 or "
                "bf16 (export the model in one of those or cast around the "
                "Conv)";
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> ws = op.getWeight().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  gather::Window w = windowOf(op, ws.drop_front(2));
  int64_t batch = in[0], groups = op.getGroup(), m = ws[0];
  int64_t mg = m / groups, cg = ws[1];
  // Products of attribute values: computed without overflow.
  int64_t kernel = 1, positions = 1, columns = 0;
  bool overflow = false;
  for (int64_t extent : w.kernel)
    overflow |= extent < 0 || llvm::MulOverflow(kernel, extent, kernel);
  for (int64_t p : out.drop_front(2))
    overflow |= llvm::MulOverflow(positions, p, positions);
  overflow |= llvm::MulOverflow(cg, kernel, columns) ||
              llvm::MulOverflow(columns, positions, columns);
  if (failed(kernels.checkMovement(op,
                                   overflow ? UINT64_MAX : uint64_t(columns),
                                   "convolution windows of " +
                                       (overflow ? std::string("more than 2^63")
                                                 : std::to_string(columns)) +
                                       " elements")))
    return failure();
  DenseElementsAttr dense;
  bool constantWeight = matchPattern(op.getWeight(), m_Constant(&dense));
  // Depthwise on the vector unit while its scale columns fit
  // (depthwise::onVectorUnit); otherwise the matrix path below, whose
  // weight is C vectors in all.
  if (!integer && groups == in[1] && cg == 1 && mg == 1 && constantWeight &&
      depthwise::onVectorUnit(
          kernel, in[1],
          layoutOf({batch, in[1], positions}, kernels.chip.lanes()).vectors(),
          kernels.chip.totalVectors()))
    return lowerDepthwiseConv(op, w, dense, kernel, positions, kernels);
  // A 1 x 1 convolution of stride 1 without padding over one image and one
  // group has the input itself as its windows: it multiplies the input's
  // [C, positions] rows as they lie, copying nothing.
  int64_t inPlane = 1;
  for (int64_t d : in.drop_front(2))
    inPlane *= d;
  bool inputIsWindows =
      batch == 1 && groups == 1 && kernel == 1 && inPlane == positions;
  for (int64_t stride : w.strides)
    inputIsWindows &= stride == 1;
  for (int64_t pad : w.pads)
    inputIsWindows &= pad == 0;
  // A constant bias rides in the product: each weight row gains the
  // bias of its channel, and the windows a row of ones (so a 1 x 1
  // convolution's windows are then a copy of its input with that row),
  // unless that row would start another K tile of the planes (then the
  // bias is added per channel after the product). Adding it after the
  // product instead of copying the input was measured on the model suite:
  // 1-2% fewer cycles, but 2-4% more SRAM at the peak, for the second
  // result-sized buffer the addition writes.
  int64_t ck = cg * kernel;
  DenseElementsAttr biasValues;
  bool biasInProduct = !narrow && constantWeight && op.getBias() &&
                       matchPattern(op.getBias(), m_Constant(&biasValues)) &&
                       ck % int64_t(kernels.chip.proto().matrix().rows()) != 0;
  int64_t width = ck + (biasInProduct ? 1 : 0);
  // The weight of each group as rows of C/g * K (and the bias): constant
  // weights are cut on the host, others by a gather per group.
  SmallVector<Value> groupWeights;
  if (constantWeight) {
    // Each row's bytes, then its bias (f32 weights only).
    int64_t bytes = int64_t(weightElement.getIntOrFloatBitWidth() / 8);
    std::vector<float> biases;
    if (biasInProduct)
      biases = floatsOf(biasValues);
    ArrayRef<char> raw = dense.getRawData();
    auto rowType = RankedTensorType::get({mg, width}, weightElement);
    for (int64_t g = 0; g < groups; ++g) {
      DenseElementsAttr rows;
      if (dense.isSplat() && !biasInProduct) {
        rows =
            DenseElementsAttr::get(rowType, dense.getSplatValue<Attribute>());
      } else {
        std::vector<char> data(size_t(mg * width * bytes));
        for (int64_t r = 0; r < mg; ++r) {
          int64_t channel = g * mg + r;
          char *row = data.data() + r * width * bytes;
          if (dense.isSplat())
            for (int64_t e = 0; e < ck; ++e)
              std::copy_n(raw.begin(), bytes, row + e * bytes);
          else
            std::copy_n(raw.begin() + channel * ck * bytes, ck * bytes, row);
          if (biasInProduct)
            std::memcpy(data.data() + (r * width + ck) * bytes,
                        &biases[channel], sizeof(float));
        }
        rows = DenseElementsAttr::getFromRawBuffer(rowType, data);
      }
      groupWeights.push_back(htile::ConstantOp::create(
          kernels.builder, loc, MemRefType::get({mg, width}, weightElement), rows,
          IntegerAttr()));
    }
  } else {
    Value weight = kernels.bufferAs(op.getWeight(), {m, ck});
    for (int64_t g = 0; g < groups; ++g) {
      if (groups == 1) {
        groupWeights.push_back(weight);
        continue;
      }
      SmallVector<int64_t> starts{g * mg, 0}, steps{1, 1};
      Value rows = kernels.alloc(MemRefType::get({mg, ck}, weightElement), loc);
      kernels.move(loc, ValueRange{weight}, rows,
                   gather::slice({m, ck}, starts, steps, {mg, ck}));
      groupWeights.push_back(rows);
    }
  }
  Value input = kernels.held(op.getInput());
  SmallVector<Value> columnInputs{input};
  if (biasInProduct)
    columnInputs.push_back(kernels.constantBuffer(loc, {1}, {1.0f}));
  int64_t one = cast<MemRefType>(input.getType()).getNumElements();
  SmallVector<Value> pieces;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t g = 0; g < groups; ++g) {
      Value windows;
      if (inputIsWindows && !biasInProduct) {
        windows = kernels.bufferAs(op.getInput(), {cg, positions});
      } else {
        windows =
            kernels.alloc(MemRefType::get({width, positions}, element), loc);
        gather::Indices indices =
            gather::convColumns(in, w, out, n, g * cg, cg);
        if (biasInProduct)
          indices.insert(indices.end(), positions, one);
        kernels.move(loc, columnInputs, windows, indices);
      }
      Value piece =
          kernels.alloc(MemRefType::get({mg, positions}, sumType), loc);
      htile::MatMulOp::create(kernels.builder, loc, groupWeights[g], windows,
                              Value(), Value(), piece, htile::Activation::none,
                              kernels.matmulTile(), false, IntegerAttr());
      pieces.push_back(piece);
    }
  // The pieces in (batch, group) order are the output's elements in order.
  Value result, products;
  if (pieces.size() == 1) {
    products = pieces.front();
    result = htile::ViewOp::create(
        kernels.builder, loc, MemRefType::get({batch, m, positions}, sumType),
        products);
  } else {
    result = products =
        kernels.alloc(MemRefType::get({batch, m, positions}, sumType), loc);
    kernels.move(loc, pieces, result, gather::identity(batch * m * positions));
  }
  // The kernel plan runs a convolution whose windows are gathered as one
  // kernel instead (a host library convolves the map where it lies); the
  // chip's program is unchanged. Not one whose input is its windows: the
  // plan multiplies the input as it lies (a copy with a row of ones for a
  // bias in the product), which oneDNN's sgemm does faster than its
  // convolution, whose blocked layout takes two reorders of the map (64
  // to 256 channels over 56 x 56, measured alone: 0.51 against 0.88 ms).
  if (!narrow && !integer && !inputIsWindows && w.kernel.size() <= 3)
    htile::PlanConvOp::create(
        kernels.builder, loc, input, groupWeights, products,
        kernels.builder.getDenseI64ArrayAttr(in),
        kernels.builder.getDenseI64ArrayAttr(w.kernel),
        kernels.builder.getDenseI64ArrayAttr(w.strides),
        kernels.builder.getDenseI64ArrayAttr(w.pads),
        kernels.builder.getDenseI64ArrayAttr(w.dilations));
  if (Value bias = op.getBias(); bias && !biasInProduct)
    result = addChannelBias(loc, result, bias, m, kernels);
  // [N, M, positions] holds the result's elements in order.
  kernels.map(op.getResult(), narrowResult(op, result, kernels));
  return success();
}

/// A transposed convolution that spreads each input element into an
/// s0 x s1 block of its own (isBlockSpreading): output channel m at block
/// position (a, b) is weight column W[:, m, a, b] times the input's maps.
/// One product of the weight as rows ([M * s0 * s1, C], a row per channel
/// and block position) by the input's held maps ([C, H * W]) gives every
/// block position's map, the bias is added per row, and one move
/// interleaves them into the output's maps ([1, M, (H * s0) * (W * s1)]).
/// The zeros a convolution of the spread input would multiply are not.
LogicalResult lowerConvTranspose(hgraph::ConvTransposeOp op,
                                 const KernelBuilder &kernels) {
  if (!isBlockSpreading(op))
    return op.emitError("this transposed convolution is lowered by "
                        "hetc-hgraph-decompose, which must run first");
  Location loc = op.getLoc();
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> ws = op.getWeight().getType().getShape();
  int64_t channels = in[1], h = in[2], w = in[3];
  int64_t m = ws[1], s0 = ws[2], s1 = ws[3], block = s0 * s1;
  int64_t rows = m * block, positions = h * w;
  int64_t count = 0;
  bool overflow = llvm::MulOverflow(positions, rows, count);
  if (failed(kernels.checkMovement(op, overflow ? UINT64_MAX : uint64_t(count),
                                   "spreading " + Twine(overflow ? 0 : count) +
                                       " elements into blocks")))
    return failure();
  DenseElementsAttr weights, bias;
  matchPattern(op.getWeight(), m_Constant(&weights));
  std::vector<float> w4 = floatsOf(weights);
  // Row (m, a, b) of the product's weight: W[c, m, a, b] over c.
  std::vector<float> weightRows(size_t(rows * channels));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t r = 0; r < rows; ++r)
      weightRows[size_t(r * channels + c)] = w4[size_t(c * rows + r)];
  Value weightBuffer =
      kernels.constantBuffer(loc, {rows, channels}, weightRows);
  Value input = kernels.bufferAs(op.getInput(), {channels, positions});
  Type f32 = kernels.builder.getF32Type();
  Value product = kernels.alloc(MemRefType::get({rows, positions}, f32), loc);
  htile::MatMulOp::create(kernels.builder, loc, weightBuffer, input, Value(),
                          Value(), product, htile::Activation::none,
                          kernels.matmulTile(), false, IntegerAttr());
  if (op.getBias() && matchPattern(op.getBias(), m_Constant(&bias))) {
    std::vector<float> perChannel = floatsOf(bias);
    std::vector<float> column(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r)
      column[size_t(r)] = perChannel[size_t(r / block)];
    product = kernels.combine(loc, htile::BinaryKind::add, product,
                              kernels.constantBuffer(loc, {rows, 1}, column));
  }
  // Output element (m, y * s0 + a, x * s1 + b) is product element
  // (m * block + a * s1 + b, y * w + x).
  gather::Indices indices(static_cast<size_t>(count));
  int64_t wide = w * s1, at = 0;
  for (int64_t c = 0; c < m; ++c)
    for (int64_t y = 0; y < h * s0; ++y)
      for (int64_t x = 0; x < wide; ++x) {
        int64_t row = c * block + (y % s0) * s1 + x % s1;
        indices[size_t(at++)] = row * positions + (y / s0) * w + x / s1;
      }
  Value out = kernels.alloc(MemRefType::get({1, m, h * s0 * wide}, f32), loc);
  kernels.move(loc, ValueRange{product}, out, indices);
  // [1, M, positions] holds the result's elements in order.
  kernels.map(op.getResult(), out);
  return success();
}

/// The copies of a channels-last depthwise convolution's constant weight.
/// Each output vector reads a weight row per kernel element, about four a
/// cycle at the dispatcher's rate, where one bank gives one; four copies,
/// which the placer keeps in other slices, give the reads banks enough.
constexpr int64_t kDepthwiseWeightCopies = 4;

/// A channels-last depthwise convolution: one htile.depthwise_conv over
/// the map's rows of channels, read where the producer left them.
LogicalResult lowerDepthwiseConvNhwc(hgraph::DepthwiseConvNhwcOp op,
                                     const KernelBuilder &kernels) {
  auto type = op.getType();
  if (!type.getElementType().isF32())
    return op.emitError("a channels-last depthwise convolution on ")
           << type.getElementType()
           << " is not supported on the chip yet; it runs on f32";
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = type.getShape();
  Value input = kernels.bufferAs(op.getInput(), in.drop_front());
  SmallVector<Value> weights{kernels.buffer(op.getWeight())};
  DenseElementsAttr values;
  if (matchPattern(op.getWeight(), m_Constant(&values)))
    for (int64_t copy = 1;
         copy < std::min(kDepthwiseWeightCopies, out[1] * out[2]); ++copy)
      weights.push_back(htile::ConstantOp::create(
          kernels.builder, op.getLoc(),
          cast<MemRefType>(weights.front().getType()), values, IntegerAttr()));
  Value bias = op.getBias() ? kernels.buffer(op.getBias()) : Value();
  Value result = kernels.alloc(
      MemRefType::get(out.drop_front(), type.getElementType()), op.getLoc());
  htile::DepthwiseConvOp::create(kernels.builder, op.getLoc(), input, weights,
                                 result, bias, op.getStrides(), op.getPads(),
                                 op.getDilations());
  // [Ho, Wo, C] holds the result's elements in order.
  kernels.map(op.getResult(), result);
  return success();
}

LogicalResult lowerMaxPool(hgraph::MaxPoolOp op, const KernelBuilder &kernels) {
  return lowerPool(op, /*max=*/true, kernels);
}

LogicalResult lowerAveragePool(hgraph::AveragePoolOp op,
                               const KernelBuilder &kernels) {
  return lowerPool(op, /*max=*/false, kernels);
}

} // namespace

void tiling::populateConvolutionPatterns(RewritePatternSet &patterns,
                                         const TypeConverter &converter,
                                         LoweringState &state) {
  patterns.add<LowerWith<hgraph::ConvOp, lowerConv>,
               LowerWith<hgraph::ConvTransposeOp, lowerConvTranspose>,
               LowerWith<hgraph::DepthwiseConvNhwcOp, lowerDepthwiseConvNhwc>,
               LowerWith<hgraph::MaxPoolOp, lowerMaxPool>,
               LowerWith<hgraph::AveragePoolOp, lowerAveragePool>>(
      converter, patterns.getContext(), state);
}
