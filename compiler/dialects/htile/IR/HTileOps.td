//===- HTileOps.td - htile buffers and kernels -------------*- tablegen -*-===//

#ifndef HETC_HTILE_OPS
#define HETC_HTILE_OPS

include "compiler/dialects/htile/IR/HTileDialect.td"
include "compiler/dialects/htile/IR/HTileEnums.td"
include "compiler/dialects/hisa/IR/HIsaVectorEnums.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ViewLikeInterface.td"

defvar HTile_Buffer = AnyStaticShapeMemRef;

// An op for the kernel plan only (HTile.h, hetc::htile::PlanOnly).
def HTile_PlanOnly : NativeOpTrait<"PlanOnly"> {
  let cppNamespace = "::hetc::htile";
}

// A kernel reads its `ins` buffers and writes its `outs` buffers, which
// DestinationStyleOpInterface names (getDpsInputs, getDpsInits): memory
// planning keeps a kernel's buffers apart by it.
class HTile_KernelOp<string mnemonic, list<Trait> traits = []>
    : HTile_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<DestinationStyleOpInterface>])>;

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def HTile_InputOp : HTile_Op<"input"> {
  let summary = "A model input, in an SRAM buffer filled before the program";
  let description = [{
    Binds the model input `name` to a buffer. `address` is the first vector
    address; `hetc-htile-plan-memory` sets it.

    ```mlir
    %x = htile.input "x" {address = 0 : i64} : memref<4x32xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<I64Attr>:$address);
  let results = (outs HTile_Buffer:$buffer);
  let assemblyFormat = "$name attr-dict `:` type($buffer)";
}

def HTile_ConstantOp : HTile_Op<"constant"> {
  let summary = "A constant preloaded into an SRAM buffer";
  let description = [{
    Places the constant `value` in SRAM at `address` (set by
    `hetc-htile-plan-memory`). The artifact carries the data.

    ```mlir
    %w = htile.constant dense<0.5> : tensor<32x10xf32> : memref<32x10xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value, OptionalAttr<I64Attr>:$address);
  let results = (outs HTile_Buffer:$buffer);
  let assemblyFormat = "$value attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def HTile_AllocOp : HTile_Op<"alloc"> {
  let summary = "An SRAM buffer for an intermediate result";
  let description = [{
    Reserves a buffer; `hetc-htile-plan-memory` gives it an `address` by
    liveness, so buffers whose lives do not overlap share SRAM.

    ```mlir
    %t = htile.alloc {address = 64 : i64} : memref<4x10xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$address);
  let results = (outs HTile_Buffer:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
}

def HTile_ViewOp : HTile_Op<"view", [Pure,
    DeclareOpInterfaceMethods<ViewLikeOpInterface, ["getViewSource"]>]> {
  let summary = "The same buffer, or a run of its rows, seen with another shape of equal row length";
  let description = [{
    Reinterprets `source` without moving data. Because rows are padded to
    whole vectors, this is only possible when the innermost dimension (the
    row length) is unchanged; the verifier checks it. The element type is
    the source's, or i32 for f32 and f32 for i32: one 32-bit lane word
    each, so the view reads the same bits as the other type (a bit
    cast).

    Without `rows`, the view holds all of the source's elements. With
    `rows n`, it holds the rows from row `n` of the source on (rows of the
    innermost dimension, in row-major order), as many as its shape has,
    which must lie inside the source: a slice of whole rows (one head's
    keys of a key cache) read in place. Such a view is only read; no
    kernel writes through it.

    ```mlir
    %v = htile.view %t : memref<2x4x16xf32> to memref<8x16xf32>
    %h = htile.view %cache rows 128 : memref<2048x64xf32> to memref<128x64xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$source,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$first_row);
  let results = (outs HTile_Buffer:$result);
  let assemblyFormat = [{
    $source (`rows` $first_row^)? attr-dict `:` type($source) `to` type($result)
  }];
  let hasVerifier = 1;
}

def HTile_OutputOp : HTile_Op<"output"> {
  let summary = "Names a buffer as a model output";
  let description = [{
    After the program ends, the runtime reads the output `name` from
    `buffer`.

    ```mlir
    htile.output "y", %y : memref<4x10xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, HTile_Buffer:$buffer);
  let assemblyFormat = "$name `,` $buffer attr-dict `:` type($buffer)";
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//




def HTile_MatMulOp : HTile_KernelOp<"matmul", [AttrSizedOperandSegments]> {
  let summary = "Matrix-unit kernel: output = activation(input * weight + bias)";
  let description = [{
    Multiplies a 2-D `input` (M x K) by a 2-D `weight` (K x N) on the
    matrix unit, adds the optional row `bias` (N or 1 x N) and applies
    `activation` on the vector unit, writing `output` (M x N). `tile` is
    `[rows, k, n]`: the input rows streamed per step and the weight tile
    installed in one plane (k x n), chosen by `hetc-convert-hgraph-to-htile`
    to match the chip; K and N are cut into `ceil(K / k)` and `ceil(N / n)`
    tiles.

    With a row `scale` (f32, N or 1 x N) the sums are multiplied by it,
    column by column, before the bias. An i8 weight needs one and an f16
    or bf16 input: each weight row is converted to the input's type on the
    vector unit as it goes to the plane.

    With `transposed`, `weight` is N x K and multiplied transposed: its
    rows are installed as weight columns (M_LOAD_WEIGHTS_COLUMN), and each
    tile is a k x n block of the transpose. It has the input's type and no
    scale.

    With `interleave p` (2 for f16 and bf16 weights, 4 for i8 and ui8: as
    many vectors as share an SRAM row), `weight` holds W (K x N) with p
    rows of each n-wide column tile side by side, `hetc-htile-interleave-
    weights`' layout: its shape is `ceil(K / p) x (ceil(N / n) * n * p)`
    and `weight[g][(j * p + q) * n + c] = W[g * p + q][j * n + c]`, zero
    past K and N. Each SRAM row then holds p consecutive rows of one
    tile, which one read and one M_LOAD_WEIGHTS install together. It
    needs `tile`, and p is counted in the input's type: an i8 weight of an
    f16 or bf16 input (converted on its way to the planes) interleaves by
    2, its SRAM rows holding two pairs of rows, read and converted a pair
    at a time.

    ```mlir
    htile.matmul ins(%x, %w) bias(%b : memref<10xf32>) outs(%y) activation(relu)
        {tile = array<i64: 1, 16, 16>} : memref<4x32xf32>, memref<32x10xf32>, memref<4x10xf32>
    htile.matmul ins(%x, %q) scale(%s : memref<10xf32>) outs(%y) activation(none)
        : memref<4x32xf16>, memref<32x10xi8>, memref<4x10xf32>
    htile.matmul ins(%q, %k) transposed outs(%s) activation(none)
        : memref<1x64xf32>, memref<128x64xf32>, memref<1x128xf32>
    htile.matmul ins(%x, %p) interleave 2 outs(%y) activation(none)
        {tile = array<i64: 1, 16, 16>} : memref<4x32xf16>, memref<16x32xf16>, memref<4x10xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$input, HTile_Buffer:$weight,
                       Optional<HTile_Buffer>:$bias,
                       Optional<HTile_Buffer>:$scale, HTile_Buffer:$output,
                       HTile_ActivationAttr:$activation,
                       OptionalAttr<DenseI64ArrayAttr>:$tile,
                       UnitAttr:$transposed,
                       OptionalAttr<I64Attr>:$interleave);
  let assemblyFormat = [{
    `ins` `(` $input `,` $weight `)` (`transposed` $transposed^)?
    (`interleave` $interleave^)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`scale` `(` $scale^ `:` type($scale) `)`)?
    `outs` `(` $output `)` `activation` `(` $activation `)` attr-dict `:`
    type($input) `,` type($weight) `,` type($output)
  }];
  let hasVerifier = 1;
}

def HTile_BinaryOp : HTile_KernelOp<"binary"> {
  let summary = "Vector-unit kernel: output = lhs <kind> rhs with broadcasting";
  let description = [{
    Applies `kind` elementwise. The operands broadcast to the output shape
    as numpy does: a dimension of 1 repeats. An operand whose row length is
    1 while the output's is not has its one lane spread over the vector by a
    lane reduction before the operation.

    ```mlir
    htile.binary add ins(%a, %b) outs(%c) : memref<4x16xf32>, memref<16xf32>, memref<4x16xf32>
    htile.binary div ins(%a, %s) outs(%c) : memref<4x16xf32>, memref<4x1xf32>, memref<4x16xf32>
    htile.binary less ins(%a, %b) outs(%m) : memref<4x16xf16>, memref<4x16xf16>, memref<4x16xi1>
    ```

    The operands have one element type, which the output shares except for
    the comparisons (`equal` ... `greater_equal`), whose output is `i1`.
    `mod` is the remainder with the divisor's sign, `fmod` with the
    dividend's.

    With `column(lhs)` or `column(rhs)`, that operand, a buffer of R f32
    or i32 elements (1-D), or of n copies of them (n x R), is the column
    R x 1 held packed: it broadcasts as R x 1 would, but its elements lie
    one a lane, a vector holding as many rows' values as it has lanes,
    instead of a vector a row (`hetc-htile-pack-columns`). Row r is read
    from copy r mod n, and its lane spread over the row's vectors
    (`hisa.vbroadcast`).

    ```mlir
    htile.binary mul ins(%a, %t) column(rhs) outs(%c) : memref<1x8x16xf32>, memref<8xf32>, memref<1x8x16xf32>
    htile.binary add ins(%a, %t) column(rhs) outs(%c) : memref<1x8x16xf32>, memref<2x8xf32>, memref<1x8x16xf32>
    ```
  }];
  let arguments = (ins HTile_BinaryKindAttr:$kind, HTile_Buffer:$lhs,
                       HTile_Buffer:$rhs, HTile_Buffer:$output,
                       OptionalAttr<HTile_OperandSideAttr>:$column);
  let assemblyFormat = [{
    $kind `ins` `(` $lhs `,` $rhs `)` (`column` `(` $column^ `)`)?
    `outs` `(` $output `)` attr-dict `:`
    type($lhs) `,` type($rhs) `,` type($output)
  }];
  let builders = [
    OpBuilder<(ins "::hetc::htile::BinaryKind":$kind, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs, "::mlir::Value":$output), [{
      build($_builder, $_state, kind, lhs, rhs, output,
            ::hetc::htile::OperandSideAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The shape `operand` (0: lhs, 1: rhs) broadcasts as: its own, or
    /// R x 1 for a packed column of R elements.
    ::llvm::SmallVector<int64_t> getBroadcastShape(unsigned operand);
  }];
  let hasVerifier = 1;
}

def HTile_UnaryOp : HTile_KernelOp<"unary"> {
  let summary = "Vector-unit kernel: output = kind(input) elementwise";
  let description = [{
    Applies `kind` to each element of `input`; padding lanes stay zero.

    ```mlir
    htile.unary relu ins(%a) outs(%c) : memref<4x16xf32>, memref<4x16xf32>
    ```
  }];
  let arguments = (ins HIsa_VUnaryKind:$kind, HTile_Buffer:$input,
                       HTile_Buffer:$output);
  let assemblyFormat = [{
    $kind `ins` `(` $input `)` `outs` `(` $output `)` attr-dict `:`
    type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}



def HTile_CastOp : HTile_KernelOp<"cast"> {
  let summary = "Vector-unit kernel: converts each element to the output's element type";
  let description = [{
    Converts with the chip's V_CAST rules (docs/isa.md, "Numerics"): float
    to integer truncates towards zero and saturates, integer to integer
    saturates, to a narrower float rounds to nearest even (and saturates
    for the 8- and 4-bit floats). `overflow` and `rounding` are V_CAST's
    (see `hisa.vcast`): `no_saturate` for float8 outputs, `wrap` for
    integer outputs, and the rounding of f8E8M0FNU outputs.

    ```mlir
    htile.cast ins(%a) outs(%b) : memref<4x16xf32>, memref<4x16xf16>
    htile.cast ins(%a) outs(%c) overflow wrap : memref<4x16xf32>, memref<4x16xi4>
    ```
  }];
  let arguments = (ins HTile_Buffer:$input, HTile_Buffer:$output,
                       OptionalAttr<HTile_CastOverflowAttr>:$overflow,
                       OptionalAttr<HTile_E8M0RoundingAttr>:$rounding);
  let assemblyFormat = [{
    `ins` `(` $input `)` `outs` `(` $output `)` (`overflow` $overflow^)?
    (`rounding` $rounding^)? attr-dict `:` type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def HTile_SelectOp : HTile_KernelOp<"select"> {
  let summary = "Vector-unit kernel: output = condition ? lhs : rhs with broadcasting";
  let description = [{
    `condition` holds `i1`; `lhs`, `rhs` and `output` share an element
    type. The three operands broadcast to the output shape as in
    `htile.binary`.

    ```mlir
    htile.select ins(%c, %a, %b) outs(%o) : memref<4x16xi1>, memref<4x16xf32>, memref<16xf32>, memref<4x16xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$condition, HTile_Buffer:$lhs,
                       HTile_Buffer:$rhs, HTile_Buffer:$output);
  let assemblyFormat = [{
    `ins` `(` $condition `,` $lhs `,` $rhs `)` `outs` `(` $output `)` attr-dict
    `:` type($condition) `,` type($lhs) `,` type($rhs) `,` type($output)
  }];
  let hasVerifier = 1;
}

def HTile_SoftmaxOp : HTile_KernelOp<"softmax"> {
  let summary = "Vector-unit kernel: softmax along the innermost dimension";
  let description = [{
    Each row of `input` becomes `exp(x - max) / sum(exp(x - max))`, using
    lane reductions on the vector unit. `scratch` holds the exponentials
    of the rows while their sum is formed; it has the shape of `input`.

    ```mlir
    htile.softmax ins(%a) outs(%c) scratch(%s) : memref<4x10xf32>, memref<4x10xf32>, memref<4x10xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$input, HTile_Buffer:$output,
                       HTile_Buffer:$scratch);
  let assemblyFormat = [{
    `ins` `(` $input `)` `outs` `(` $output `)` `scratch` `(` $scratch `)` attr-dict `:`
    type($input) `,` type($output) `,` type($scratch)
  }];
  let hasVerifier = 1;
}


def HTile_ReduceOp : HTile_KernelOp<"reduce"> {
  let summary = "Vector-unit kernel: reduce each row to one element";
  let description = [{
    Combines the elements of each row of `input` (its innermost dimension)
    with `kind`; `output` has the input's shape with an innermost dimension
    of 1. Rows longer than one vector are reduced a vector at a time,
    combining with the partial result in `output`.

    ```mlir
    htile.reduce max ins(%a) outs(%m) : memref<4x20xf32>, memref<4x1xf32>
    ```
  }];
  let arguments = (ins HIsa_VReduceKind:$kind, HTile_Buffer:$input,
                       HTile_Buffer:$output);
  let assemblyFormat = [{
    $kind `ins` `(` $input `)` `outs` `(` $output `)` attr-dict `:`
    type($input) `,` type($output)
  }];
  let hasVerifier = 1;
}

def HTile_DepthwiseConvOp : HTile_KernelOp<"depthwise_conv",
                                            [AttrSizedOperandSegments]> {
  let summary = "Vector-unit kernel: 2-D depthwise convolution of a channels-last map";
  let description = [{
    `input` is `H x W x C`, each of `weights` `kh x kw x C` (a row of
    channels per kernel element), the optional `bias` `C`, and `output`
    `Ho x Wo x C`: each output row (a position's channels) is the sum, in
    kernel order, of the input row under each kernel element times that
    element's weight row, over the elements whose input position lies
    inside the map, then plus the bias row. `pads` holds the begin pads
    (rows, columns), then the end pads; every output position's window
    must hold a position of the map.

    `weights` are copies of one weight, which the placer keeps apart:
    output position p reads copy p mod (number of copies). Every output
    row reads every weight row, so with one copy its banks would bound the
    kernel; copies in other slices share the reads.

    Per vector of an output row: a read of the input row and of the weight
    row and a product per kernel element inside the map, a sum per element
    after the first, the bias row's read and sum, and one write. Rows are
    read where they lie, so no element moves through a switch unit and no
    window is copied.

    ```mlir
    htile.depthwise_conv ins(%x, [%w0, %w1], %b) outs(%y) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
        : memref<14x14x96xf32>, [memref<3x3x96xf32>, memref<3x3x96xf32>], memref<96xf32> -> memref<14x14x96xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$input, Variadic<HTile_Buffer>:$weights,
                       HTile_Buffer:$output, Optional<HTile_Buffer>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations);
  let assemblyFormat = [{
    `ins` `(` $input `,` `[` $weights `]` (`,` $bias^)? `)` `outs` `(` $output `)`
    attr-dict `:` type($input) `,` `[` type($weights) `]` (`,` type($bias)^)? `->`
    type($output)
  }];
  let hasVerifier = 1;
}

def HTile_PlanDepthwiseConvOp
    : HTile_Op<"plan_depthwise_conv", [HTile_PlanOnly, AttrSizedOperandSegments]> {
  let summary = "Kernel-plan form of a channels-first depthwise convolution";
  let description = [{
    For the kernel plan only: the chip runs the moves, products and sums
    before it that fill `output`, and nothing for this op; the kernel plan
    runs it in their place, as one kernel (`PLAN_DEPTHWISE_CONV_CF`).

    `input` holds an `input_shape` map (`N x C x` one to three spatial
    extents) in order, in any shape of as many elements; `taps` are one
    `C`-element column per kernel element, in kernel order (the scale
    columns the chip's products read); the optional `bias` holds `C`
    values. `output` holds the `N x C x` output positions in order: per
    channel and output position, the sum over the kernel elements of the
    input element under each (zero in the padding) times that element's
    column entry, then plus the bias. `pads` holds the begin pads, then the
    end pads; a window may lie wholly in the padding.

    ```mlir
    htile.plan_depthwise_conv ins(%x, [%t0, %t1, %t2], %b) outs(%y) {dilations = array<i64: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>}
        : memref<1x2x8xf32>, [memref<2x1xf32>, memref<2x1xf32>, memref<2x1xf32>], memref<2x1xf32> -> memref<1x2x8xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$input, Variadic<HTile_Buffer>:$taps,
                       HTile_Buffer:$output, Optional<HTile_Buffer>:$bias,
                       DenseI64ArrayAttr:$input_shape,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations);
  let assemblyFormat = [{
    `ins` `(` $input `,` `[` $taps `]` (`,` $bias^)? `)` `outs` `(` $output `)`
    attr-dict `:` type($input) `,` `[` type($taps) `]` (`,` type($bias)^)? `->`
    type($output)
  }];
  let hasVerifier = 1;
}

def HTile_PlanConvOp : HTile_Op<"plan_conv", [HTile_PlanOnly]> {
  let summary = "Kernel-plan form of a convolution by weight rows";
  let description = [{
    For the kernel plan only: the chip runs the window gathers and matrix
    products before it that fill `output`, and nothing for this op; the
    kernel plan runs it in their place, as one kernel (`PLAN_CONV`).

    `input` holds an `input_shape` map (`N x C x` one to three spatial
    extents) in order, in any shape of as many elements. `weights` are
    one buffer per group (G groups, G dividing C), each the weight rows of
    the group's `M/G` output channels: `C/G x K` values per row (K the
    product of `kernel`), in channel-then-kernel order, and, where a row
    has one value more, the channel's bias last (the rows the chip's
    products read). `output` holds the `N x M x` output positions in
    order: per output channel and position, the sum over the group's
    input channels and the kernel elements of the input element under each
    (zero in the padding) times its weight, plus the bias. `pads` holds
    the begin pads, then the end pads.

    ```mlir
    htile.plan_conv ins(%x, [%w]) outs(%y) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 3, 8, 8>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
        : memref<1x3x64xf32>, [memref<4x28xf32>] -> memref<1x4x64xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$input, Variadic<HTile_Buffer>:$weights,
                       HTile_Buffer:$output, DenseI64ArrayAttr:$input_shape,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations);
  let assemblyFormat = [{
    `ins` `(` $input `,` `[` $weights `]` `)` `outs` `(` $output `)`
    attr-dict `:` type($input) `,` `[` type($weights) `]` `->` type($output)
  }];
  let hasVerifier = 1;
}

def HTile_TransposeOp : HTile_KernelOp<"transpose"> {
  let summary = "Kernel: output = input with its dimensions permuted";
  let description = [{
    Permutes dimensions by `perm` (result dimension `i` is input dimension
    `perm[i]`). Two kinds run on the chip: permutations that keep the
    innermost dimension last move whole rows (memory reads and writes
    only); permutations that swap the two innermost dimensions (leading
    ones permuted in any way) transpose each matrix on a matrix plane: its
    rows are installed as weight columns and read out by multiplying the
    rows of `identity` (a `lanes x lanes` identity constant), then masked to
    the valid lanes on the vector unit.

    ```mlir
    htile.transpose ins(%a) outs(%b) identity(%eye) {perm = array<i64: 1, 0>}
        : memref<4x20xf32>, memref<20x4xf32>, memref<16x16xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$input, HTile_Buffer:$output,
                       Optional<HTile_Buffer>:$identity,
                       DenseI64ArrayAttr:$perm);
  let assemblyFormat = [{
    `ins` `(` $input `)` `outs` `(` $output `)` (`identity` `(` $identity^ `)`)?
    attr-dict `:` type($input) `,` type($output) (`,` type($identity)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True if the permutation swaps the two innermost dimensions (a matrix
    /// transpose); false if it keeps the innermost dimension last.
    bool swapsInnermost();
  }];
}

def HTile_GatherOp : HTile_KernelOp<"gather"> {
  let summary = "Data-movement kernel: each output element copies one input element";
  let description = [{
    Element `i` of `output` (row-major) is element `indices[i]` of the
    inputs taken as one list: the elements of `inputs[0]` in row-major
    order, then those of `inputs[1]`, and so on; `-1` makes it zero. Every
    layout op (concat, slice, split, transpose, reshape across rows, pad,
    tile, expand, gather with constant indices) is such a map, computed at
    compile time; a non-zero pad value is an extra one-element input.

    On the chip each output vector is assembled on a switch unit: the
    input vectors it draws from are read, each `S_PERMUTE` moves its lanes
    into place and merges into the previous partial vector, and the result
    is written. A vector that is a whole input vector in place is copied
    without the switch.

    With `first_row`, the indices fill only the whole rows of `output`
    (rows of its innermost dimension) from that row on: one row per
    innermost length of indices. A move larger than one kernel's index
    list, which holds at most 1048576 entries, is split this way into
    kernels that each fill a band of rows.

    ```mlir
    htile.gather ins(%a, %b) outs(%c) indices [0, 1, 4, 2, 3, 5]
        : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
    // The second row alone:
    htile.gather ins(%a, %b) outs(%c) indices [2, 3, 5] first_row 1
        : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
    ```
  }];
  let arguments = (ins Variadic<HTile_Buffer>:$inputs, HTile_Buffer:$output,
                       DenseI64ArrayAttr:$indices,
                       OptionalAttr<I64Attr>:$first_row);
  let assemblyFormat = [{
    `ins` `(` $inputs `)` `outs` `(` $output `)` `indices` $indices
    (`first_row` $first_row^)? attr-dict
    `:` `(` type($inputs) `)` `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The most indices (output elements) one gather may have.
    static constexpr int64_t kMaxElements = int64_t(1) << 20;
    /// The output rows the indices fill: the first, and how many.
    int64_t firstRow() { return getFirstRow().value_or(0); }
    int64_t rowCount();
  }];
}

def HTile_PlanGatherOp : HTile_Op<"plan_gather", [HTile_PlanOnly]> {
  let summary = "Kernel-plan form of a gather the chip no longer runs";
  let description = [{
    For the kernel plan only: `output` is filled as `htile.gather` fills
    it (element `i` is element `indices[i]` of the inputs taken as one
    list, `-1` zero), in the kernel plan alone (`PLAN_GATHER`). The chip
    runs nothing for it. `hetc-htile-fuse-gathers` leaves one in place of
    a gather whose buffer the chip no longer needs (the gather after it
    reads through it) but an op of the kernel plan only still reads; the
    buffer then has no place in SRAM.

    ```mlir
    htile.plan_gather ins(%a, %b) outs(%c) indices [0, 1, 4, 2, 3, 5]
        : (memref<2x2xf32>, memref<2x1xf32>) -> memref<2x3xf32>
    ```
  }];
  let arguments = (ins Variadic<HTile_Buffer>:$inputs, HTile_Buffer:$output,
                       DenseI64ArrayAttr:$indices);
  let assemblyFormat = [{
    `ins` `(` $inputs `)` `outs` `(` $output `)` `indices` $indices attr-dict
    `:` `(` type($inputs) `)` `->` type($output)
  }];
  let hasVerifier = 1;
}

def HTile_GatherRowsOp : HTile_KernelOp<"gather_rows"> {
  let summary = "Indexed-read kernel: output row block n = table row indices[n]";
  let description = [{
    `table` is a constant or a buffer the program fills; its row `i` is
    `table[i]`, the slice along its
    first dimension, whose rows of the innermost dimension lie one after
    another in SRAM. For each index `n` (row-major over `indices`),
    `output[n...]` takes row `indices[n...]`. An index outside
    `[0, table rows)` stops the program with an error naming the kernel's
    node.

    On the chip each row vector is one MEM_GATHER chain (docs/isa.md,
    "Indexed reads"): the index vector is read, turned towards the table
    on the switch unit west of the MEM slices, passes every slice that
    holds rows of the table, and the slice that holds the row emits it;
    the switch unit east of the slices turns it to where it is written.
    The cost grows with the rows read, not with the table.

    ```mlir
    htile.gather_rows ins(%table, %ids) outs(%out)
        : (memref<1000x64xf32>, memref<1x8xi64>) -> memref<1x8x64xf32>
    ```
  }];
  let arguments = (ins HTile_Buffer:$table, HTile_Buffer:$indices,
                       HTile_Buffer:$output);
  let assemblyFormat = [{
    `ins` `(` $table `,` $indices `)` `outs` `(` $output `)` attr-dict
    `:` `(` type($table) `,` type($indices) `)` `->` type($output)
  }];
  let hasVerifier = 1;
}

def HTile_ScatterRowsOp : HTile_KernelOp<"scatter_rows"> {
  let summary = "Indexed-write kernel: table row indices[n] = updates row block n";
  let description = [{
    `table` is the kernel's output, which holds the rows the updates do
    not replace (an earlier kernel filled it); its row `i` is `table[i]`,
    the slice along its first dimension. For each index `n` (row-major
    over `indices`), row `indices[n...]` becomes `updates[n...]`; of two
    updates of one row the later stays. An index outside
    `[0, table rows)` stops the program with an error naming the kernel's
    node.

    On the chip each row vector is one MEM_SCATTER chain (docs/isa.md,
    "Indexed writes"): the index vector and the update's vector are read
    and sent on by the vector unit in one cycle, towards each side of it
    that holds rows of the table; the slice that holds the row stores the
    vector. The cost grows with the rows written, not with the table.

    ```mlir
    htile.scatter_rows ins(%updates, %ids) outs(%table)
        : (memref<1x64xf16>, memref<1xi64>) -> memref<2048x64xf16>
    ```
  }];
  let arguments = (ins HTile_Buffer:$updates, HTile_Buffer:$indices,
                       HTile_Buffer:$table);
  let assemblyFormat = [{
    `ins` `(` $updates `,` $indices `)` `outs` `(` $table `)` attr-dict
    `:` `(` type($updates) `,` type($indices) `)` `->` type($table)
  }];
  let hasVerifier = 1;
}

#endif // HETC_HTILE_OPS
