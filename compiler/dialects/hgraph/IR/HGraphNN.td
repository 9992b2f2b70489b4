//===- HGraphNN.td - hgraph neural-network operators -------*- tablegen -*-===//
//
// Normalisations, convolutions, pooling, resizing and quantisation. Most of
// these are composite: hgraph passes decompose the ones that simpler ops
// express exactly (see hetc-hgraph-decompose).
//
//===----------------------------------------------------------------------===//

#ifndef HETC_HGRAPH_NN
#define HETC_HGRAPH_NN

include "compiler/dialects/hgraph/IR/HGraphDialect.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def HGraph_LogSoftmaxOp : HGraph_Op<"log_softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "Logarithm of the softmax along one axis (ONNX LogSoftmax)";
  let description = [{
    Computes `x - max(x) - log(sum(exp(x - max(x))))` along `axis`
    (non-negative).

    ```mlir
    %0 = hgraph.log_softmax %x {axis = 1 : i64} : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class HGraph_NormOp<string mnemonic, string onnxName, string formula>
    : HGraph_Op<mnemonic, [Pure]> {
  let summary = onnxName # " over the trailing dimensions from `axis`";
  let description = [{
    ONNX `}] # onnxName # [{`: normalises `input` over dimensions
    `[axis, rank)` as }] # formula # [{, then scales by `scale` (and adds
    `bias` where given); both broadcast to the normalised dimensions.
    `hetc-hgraph-decompose` rewrites it into reductions and
    elementwise ops.

    ```mlir
    %0 = hgraph.}] # mnemonic # [{ %x, %g {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$scale,
                       Optional<AnyStaticShapeTensor>:$bias, I64Attr:$axis,
                       F32Attr:$epsilon);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` `(` type($input) `,` type($scale)
    (`,` type($bias)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_LayerNormOp : HGraph_NormOp<"layer_norm", "LayerNormalization",
    "`(x - mean) / sqrt(variance + epsilon)`">;
def HGraph_RMSNormOp : HGraph_NormOp<"rms_norm", "RMSNormalization",
    "`x / sqrt(mean(x^2) + epsilon)` (it takes no bias)">;

def HGraph_BatchNormOp : HGraph_Op<"batch_norm", [Pure]> {
  let summary = "Inference batch normalisation over channel dimension 1 (ONNX BatchNormalization)";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, where the four
    1-D operands hold one value per channel (dimension 1 of `input`).
    `hetc-hgraph-decompose` rewrites it into elementwise ops on the
    per-channel operands shaped [C, 1, ...]; with constant statistics
    those fold to one multiply and one add.

    ```mlir
    %0 = hgraph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
        : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$scale,
                       AnyStaticShapeTensor:$bias, AnyStaticShapeTensor:$mean,
                       AnyStaticShapeTensor:$variance, F32Attr:$epsilon);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:` `(` type($input) `,`
    type($scale) `,` type($bias) `,` type($mean) `,` type($variance) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

def HGraph_ConvOp : HGraph_Op<"conv", [Pure]> {
  let summary = "N-D grouped convolution, NCHW layout (ONNX Conv)";
  let description = [{
    `input` is `N x C x D1 x ...`, `weight` `M x C/group x k1 x ...`, the
    optional `bias` has `M` values. `pads` holds the begin pads of each
    spatial dimension, then the end pads (ONNX `auto_pad` is resolved by
    the importer).

    An integer convolution takes an `i8` or `ui8` input and an `i8` weight
    and gives their exact sums in `i32`, with no bias (padding reads 0):
    the quantised convolutions of `hetc-hgraph-fuse-quantized`.

    ```mlir
    %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$weight,
                       Optional<AnyStaticShapeTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` `(` type($input) `,` type($weight)
    (`,` type($bias)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_DepthwiseConvNhwcOp : HGraph_Op<"depthwise_conv_nhwc", [Pure]> {
  let summary = "2-D depthwise convolution of a channels-last map";
  let description = [{
    `input` is `1 x H x W x C`, `weight` `kh x kw x C` (the weights of
    kernel element (i, j) as a row of channels) and the optional `bias`
    has `C` values; the result is `1 x Ho x Wo x C`:

    `result[0, y, x, c] = bias[c] + sum over (i, j) of weight[i, j, c] *
    input[0, y * s0 - p0 + i * d0, x * s1 - p1 + j * d1, c]`,

    with input positions outside the map counting zero. `pads` holds the
    begin pads (rows, columns), then the end pads; every output position's
    window must hold a position of the map.

    `hetc-hgraph-channels-last` makes it from a depthwise `hgraph.conv` it
    takes channels-last. Its rows are whole vectors of channels, so each
    output row is read, multiplied and summed row by row on the vector
    unit, with nothing moved through a switch unit.

    ```mlir
    %0 = hgraph.depthwise_conv_nhwc %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
        : (tensor<1x14x14x96xf32>, tensor<3x3x96xf32>, tensor<96xf32>) -> tensor<1x14x14x96xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$weight,
                       Optional<AnyStaticShapeTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` `(` type($input) `,` type($weight)
    (`,` type($bias)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_ConvTransposeOp : HGraph_Op<"conv_transpose", [Pure]> {
  let summary = "N-D grouped transposed convolution, NCHW layout (ONNX ConvTranspose)";
  let description = [{
    `weight` is `C x M/group x k1 x ...`. The output size per spatial
    dimension is `stride * (in - 1) + output_padding + (k - 1) * dilation
    + 1 - pad_begin - pad_end`; the importer resolves `output_shape` and
    `auto_pad` into `pads`.

    ```mlir
    %0 = hgraph.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
        : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x5x5xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$weight,
                       Optional<AnyStaticShapeTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding, I64Attr:$group);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` `(` type($input) `,` type($weight)
    (`,` type($bias)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

class HGraph_PoolOp<string mnemonic, string onnxName, string combine>
    : HGraph_Op<mnemonic, [Pure]> {
  let summary = onnxName # " over sliding windows of the spatial dimensions";
  let description = [{
    ONNX `}] # onnxName # [{`: each output element is the }] # combine # [{
    of a `kernel_shape` window of `input` (`N x C x D1 x ...`), moved by
    `strides`, with `pads` (begin pads, then end pads) and `dilations`.
    `ceil_mode` rounds the output size up; `count_include_pad` makes padding
    count in averages.

    ```mlir
    %0 = hgraph.}] # mnemonic # [{ %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
        : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                       BoolAttr:$ceil_mode, BoolAttr:$count_include_pad);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def HGraph_MaxPoolOp : HGraph_PoolOp<"max_pool", "MaxPool", "maximum">;
def HGraph_AveragePoolOp : HGraph_PoolOp<"average_pool", "AveragePool", "mean">;

def HGraph_ResizeOp : HGraph_Op<"resize", [Pure]> {
  let summary = "Resamples a tensor along its dimensions (ONNX Resize)";
  let description = [{
    Scales dimension d by `scales[d]` (the importer derives the scales from
    ONNX `sizes`, `axes` and `keep_aspect_ratio_policy`; the result type
    gives the output sizes) with `mode` `nearest`, `linear` or `cubic`.
    `coordinate_transformation_mode`, `nearest_mode`, `cubic_coeff_a`,
    `exclude_outside`, `extrapolation_value`, `antialias` and `roi` (one
    start and one end per dimension, used by `tf_crop_and_resize`) keep
    their ONNX meaning. `hetc-hgraph-decompose` turns each resampled
    dimension into a product with a constant interpolation matrix.

    ```mlir
    %0 = hgraph.resize %x {coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, mode = "nearest", nearest_mode = "round_prefer_floor", scales = array<f64: 1.0, 1.0, 2.0, 2.0>}
        : tensor<1x1x2x2xf32> -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, DenseF64ArrayAttr:$scales,
                       StrAttr:$mode, StrAttr:$coordinate_transformation_mode,
                       StrAttr:$nearest_mode, F32Attr:$cubic_coeff_a,
                       DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
                       DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value,
                       DefaultValuedAttr<BoolAttr, "false">:$antialias,
                       OptionalAttr<DenseF64ArrayAttr>:$roi);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantisation
//===----------------------------------------------------------------------===//

def HGraph_QuantizeLinearOp : HGraph_Op<"quantize_linear", [Pure]> {
  let summary = "Quantises: saturate(round(x / scale) + zero_point) (ONNX QuantizeLinear)";
  let description = [{
    `scale` and the optional `zero_point` are scalars (per tensor) or 1-D
    along `axis` (per channel). The result's element type is that of the
    zero point (`ui8` when none is given); rounding is half to even. For
    an 8- or 4-bit float result, `x / scale + zero_point` is rounded to
    the type (half to even) and saturates to its largest finite value; a
    float8 zero point must be zero and is left out (as the ONNX reference
    does, which keeps -0).

    ```mlir
    %0 = hgraph.quantize_linear %x, %s, %z {axis = 1 : i64} : (tensor<4x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x8xui8>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$scale,
                       Optional<AnyStaticShapeTensor>:$zero_point, I64Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` `(` type($input) `,` type($scale)
    (`,` type($zero_point)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_DequantizeLinearOp : HGraph_Op<"dequantize_linear", [Pure]> {
  let summary = "Dequantises integers: (x - zero_point) * scale (ONNX DequantizeLinear)";
  let description = [{
    `scale` and the optional `zero_point` are scalars or 1-D along `axis`;
    the result has the scale's element type.

    ```mlir
    %0 = hgraph.dequantize_linear %q, %s, %z {axis = 1 : i64} : (tensor<4x8xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$scale,
                       Optional<AnyStaticShapeTensor>:$zero_point, I64Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^)? attr-dict `:` `(` type($input) `,` type($scale)
    (`,` type($zero_point)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_MatMulIntegerOp : HGraph_Op<"matmul_integer", [Pure, AttrSizedOperandSegments]> {
  let summary = "Integer matrix product with zero points, accumulating in i32 (ONNX MatMulInteger)";
  let description = [{
    `(lhs - lhs_zero_point) x (rhs - rhs_zero_point)` with numpy matmul
    semantics on 8-bit operands; the result is `i32`.

    ```mlir
    %0 = hgraph.matmul_integer %a, %b : (tensor<4x8xui8>, tensor<8x3xui8>) -> tensor<4x3xi32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$lhs, AnyStaticShapeTensor:$rhs,
                       Optional<AnyStaticShapeTensor>:$lhs_zero_point,
                       Optional<AnyStaticShapeTensor>:$rhs_zero_point);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`,` `zero_points` `(` $lhs_zero_point^ `,` $rhs_zero_point `)`)? attr-dict `:`
    `(` type($lhs) `,` type($rhs) (`,` type($lhs_zero_point)^ `,` type($rhs_zero_point))? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // HETC_HGRAPH_NN
