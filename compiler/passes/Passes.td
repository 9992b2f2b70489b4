//===- Passes.td - hetc passes -----------------------------*- tablegen -*-===//

#ifndef HETC_PASSES
#define HETC_PASSES

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// target
//===----------------------------------------------------------------------===//

def SetChip : Pass<"hetc-set-chip", "mlir::ModuleOp"> {
  let summary = "Sets the chip a module is compiled for";
  let description = [{
    Reads and checks the chip file `file` and sets the module's `hetc.chip`
    attribute to it (replacing any chip it had). Every pass that tiles,
    places, lowers or schedules for a chip reads the chip from this
    attribute: the file is read once. `hetc compile` sets the attribute
    from its `--chip` file itself.

    ```mlir
    module {}
    // becomes, with --hetc-set-chip=file=chips/test-chip.chip
    module attributes {hetc.chip = #hetc.chip<"test-chip", "name: \"test-chip\" ...">} {}
    ```
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"\"",
           "Path of the chip description file (chips/*.chip)">
  ];
  let dependentDialects = ["::hetc::target::HetcDialect"];
}

//===----------------------------------------------------------------------===//
// hgraph
//===----------------------------------------------------------------------===//

def HGraphDecompose : Pass<"hetc-hgraph-decompose", "mlir::func::FuncOp"> {
  let summary = "Rewrites composite ONNX operators into simpler hgraph ops";
  let description = [{
    Expresses `hgraph.gemm` as `transpose`, `matmul`, `mul` (for alpha and
    beta other than 1) and `add`; `leaky_relu` as `max` (or `min` for alpha
    above 1) of `x` and `alpha * x`; `clip` as `max` then `min`; `gelu` as
    its erf (or tanh) formula; `layer_norm` and `rms_norm` as mean
    reductions over the normalised dimensions and elementwise ops;
    `batch_norm` as scale * (x - mean) / sqrt(var + eps) + bias on the
    per-channel operands shaped to broadcast along dimension 1; a
    `matmul` with a batched right operand as one 2-D matmul per batch
    element on slices of the operands, concatenated (1-D operands get
    their unit dimension); a `reduce` over other than the innermost axis
    as a transpose moving the reduced axes innermost, a reshape merging
    them and one innermost reduction, and the reductions `sum_square`,
    `l1`, `l2`, `log_sum` and `log_sum_exp` as sums with elementwise
    steps, and `prod` as a tree of multiplications of the row's halves;
    `max` and `min` over booleans (any, all) as the same reduction of the
    booleans cast to i32, cast back; and `pointwise` functions by their formulas:

    | fn | formula |
    |---|---|
    | elu | x < 0 ? alpha (e^x - 1) : x |
    | selu | beta (x > 0 ? x : alpha (e^x - 1)) |
    | celu | max(0, x) + min(0, alpha (e^(x / alpha) - 1)) |
    | hard_sigmoid | max(0, min(1, alpha x + beta)) |
    | hard_swish | x max(0, min(1, x / 6 + 1/2)) |
    | softplus | max(x, 0) + log(1 + e^-abs(x)) (= log(1 + e^x)) |
    | softsign | x / (1 + abs(x)) |
    | thresholded_relu | x > alpha ? x : 0 |
    | shrink | x < -alpha ? x + beta : (x > alpha ? x - beta : 0) |
    | swish | x sigmoid(alpha x) |
    | mish | x tanh(softplus(x)) |
    | sinh, cosh | (e^x -/+ e^-x) / 2 |
    | tan | sin(x) / cos(x) |
    | asinh | sign(x) log(abs(x) + sqrt(x^2 + 1)) |
    | acosh | log(x + sqrt(x^2 - 1)) |
    | atanh | log((1 + x) / (1 - x)) / 2 |
    | atan | range reduction to abs(u) <= tan(pi/8), then an odd polynomial of degree 9 |
    | asin, acos | atan(x / sqrt(1 - x^2)), pi/2 - asin(x) |
    | sign | x > 0 ? 1 : (x < 0 ? -1 : 0) |

    `gather` and `gather_elements` whose indices are computed at run time
    become one-hot selections: the indices (negative ones wrapped) are
    compared with the positions along the axis, a `where` picks the
    matching elements (zeros elsewhere) and a `reduce sum` over the
    positions leaves the picked one (an out-of-range index gives 0). A
    `gather` along axis 0 of a constant f32 table whose values are all
    finite (an embedding lookup) is instead a one-hot matrix (indices x
    rows, 1.0 where the row is the index) times the table seen as
    [rows, rest]: a `matmul`, whose size grows with the indices times the
    rows plus the indices times the row length.
    `log_softmax` becomes (x - max) - log(sum(exp(x - max))) along its
    axis; `softmax` along another than the last axis runs along the last
    between two transposes; `trilu` is a `where` with a constant mask;
    `resize` is, per resampled dimension, a `matmul` with a constant
    interpolation matrix (plus a constant row where tf_crop_and_resize
    extrapolates); `cumulative` is a log-step scan of slices, pads and
    adds (or multiplies); `conv_transpose` is a `conv` of the input spread
    out by the strides and padded by dilation * (kernel - 1) - pad (each
    spatial dimension a product with a constant 0/1 matrix) with the
    kernel flipped and its channel dimensions swapped per group, except
    one that spreads each input element into a block of its own (kernel
    equal to strides, no padding, dilation or groups, constant weights:
    `hetc::isBlockSpreading`), which hetc-convert-hgraph-to-htile lowers
    whole.

    Constant operands fold afterwards under
    canonicalisation, so a Gemm with constant weights and `transB = 1`
    leaves a plain `matmul` with the pre-transposed weight.

    ```mlir
    %0 = hgraph.gemm %a, %b, %c {trans_b = true} : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    // becomes
    %t = hgraph.transpose %b {perm = array<i64: 1, 0>} : tensor<3x8xf32> -> tensor<8x3xf32>
    %m = hgraph.matmul %a, %t : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %0 = hgraph.add %m, %c : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let dependentDialects = ["::hetc::hgraph::HGraphDialect"];
}

def HGraphChannelsLast : Pass<"hetc-hgraph-channels-last", "mlir::func::FuncOp"> {
  let summary = "Convolves small feature maps of many channels channels-last";
  let description = [{
    A convolution lowers as its weight rows streamed through the matrix
    planes against its windows installed as weights: `M` input rows for
    every K tile, while the planes' columns hold the output positions. For
    small maps of many channels (ResNet's last stage: 49 positions, 512
    channels) that leaves most columns empty. This pass rewrites 2-D
    convolutions of a batch of one as standard ops channels-last: one
    without groups, with a float input and constant weight and bias, as
    the input transposed to `[1, H, W, C]`, padded, one slice per kernel
    element concatenated along the channels and reshaped to
    `[positions, kh·kw·C]`, a `matmul` by the weight as `[kh·kw·C, M]`
    (folded on the host), the bias added as a row, and the result
    transposed back to `[1, M, H', W']` (a strided 1 x 1 convolution
    slices its positions before the transpose); a depthwise one in f32
    (constant weights, every window meeting the map) as one
    `hgraph.depthwise_conv_nhwc` of the transposed map, with the weights
    as a row of channels per kernel element (`[kh, kw, C]`). Which convolutions
    go channels-last is a minimum cut over all of them: each one's plane
    rows either way, and the transposes between maps of different layouts
    (the cost rule of docs/architecture.md, "Channels-last convolutions",
    with the module's chip's lanes). It then moves transposes through
    `relu`, `sigmoid`, `tanh`, slices and through `add`, `sub`, `mul`,
    `div`, `min` and `max` whose operands are transposed alike, single
    elements, per-channel scales (`[1, C, 1, 1]`, reshaped) or whole maps
    already transposed for another reader; composes transposes that meet,
    drops those that cancel and makes those that move only unit
    dimensions reshapes; and turns a global mean or sum over the positions
    of such a map into a product with a row of `1/positions` (or ones). A
    module without a chip is left as it is.

    ```mlir
    %y = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
        : (tensor<1x2048x7x7xf32>, tensor<512x2048x1x1xf32>) -> tensor<1x512x7x7xf32>
    // becomes
    %t = hgraph.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2048x7x7xf32> -> tensor<1x7x7x2048xf32>
    %r = hgraph.reshape %t : tensor<1x7x7x2048xf32> -> tensor<49x2048xf32>
    %m = hgraph.matmul %r, %wt : (tensor<49x2048xf32>, tensor<2048x512xf32>) -> tensor<49x512xf32>
    %b = hgraph.reshape %m : tensor<49x512xf32> -> tensor<1x7x7x512xf32>
    %y = hgraph.transpose %b {perm = array<i64: 0, 3, 1, 2>} : tensor<1x7x7x512xf32> -> tensor<1x512x7x7xf32>
    ```
  }];
  let dependentDialects = ["::hetc::hgraph::HGraphDialect"];
}

def HGraphFuseQuantized : Pass<"hetc-hgraph-fuse-quantized", "mlir::func::FuncOp"> {
  let summary = "Gives quantised (QDQ) convolutions the matrix unit's int8 product";
  let description = [{
    A model quantised in ONNX's QDQ form (onnxruntime's `quantize_static`)
    spells an int8 convolution as a float `Conv` between
    `DequantizeLinear` and `QuantizeLinear` nodes. A convolution of a
    dequantised 8-bit activation (one scale, zero point 0) by a dequantised
    i8 constant weight (a scale per output channel, or one; zero point 0)
    becomes an integer convolution, exact in i32, whose sums are cast to
    f32, scaled by the activation's scale times the channel's weight scale
    and get the bias:

    ```mlir
    %x = hgraph.dequantize_linear %xq, %sx : (tensor<1x16x8x8xi8>, tensor<f32>) -> tensor<1x16x8x8xf32>
    %w = hgraph.dequantize_linear %wq, %sw {axis = 0 : i64} : (tensor<32x16x3x3xi8>, tensor<32xf32>) -> tensor<32x16x3x3xf32>
    %y = hgraph.conv %x, %w, %b {...} : (...) -> tensor<1x32x8x8xf32>
    // becomes
    %s = hgraph.conv %xq, %wq {...} : (tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>) -> tensor<1x32x8x8xi32>
    %f = hgraph.cast %s : tensor<1x32x8x8xi32> -> tensor<1x32x8x8xf32>
    %y = hgraph.add (hgraph.mul %f, sx * sw as [1, 32, 1, 1]), %b as [1, 32, 1, 1]
    ```

    A `relu` of `dequantize(quantize(y, s), s)` (zero points 0) moves
    before the quantisation, and `quantize(dequantize(q, s, z), s, z)` is
    `q`, so that a ReLU between two quantised convolutions costs one f32
    kernel. Dequantisations of constants that nothing fused (the importer
    leaves those of convolution weights to this pass) are folded.
  }];
  let dependentDialects = ["::hetc::hgraph::HGraphDialect"];
}

def HGraphFuseLinear : Pass<"hetc-hgraph-fuse-linear", "mlir::func::FuncOp"> {
  let summary = "Fuses 2-D matmul, row bias add and activation into hgraph.linear";
  let description = [{
    Matches `matmul` (2-D operands, or a batched left operand with a 2-D
    right one, flattened through `reshape`), an optional following `add` of
    a row bias, and an optional following `relu`, `sigmoid` or `tanh`, each
    intermediate having one use, and replaces them with one `hgraph.linear`
    that maps to a single matrix-unit kernel with a vector-unit epilogue.
    A right operand computed as a 2-D `transpose` (not a constant) is taken
    untransposed, as a `transposed` weight.
  }];
  let dependentDialects = ["::hetc::hgraph::HGraphDialect"];
}

def HGraphNarrowWeights : Pass<"hetc-hgraph-narrow-weights", "mlir::func::FuncOp"> {
  let summary = "Stores the constant weights of matrix-unit layers in f16, bf16 or int8";
  let description = [{
    `hetc compile --precision fp16|bf16`. Every `hgraph.linear`, and every
    `hgraph.conv` but the depthwise ones (f16 at `i8`), whose weight
    is an f32 constant gets that weight rounded to `type` (to nearest, ties
    to even; beyond f16's range to infinity, which the pass refuses, naming
    the node) and its input cast to `type` before the matrix unit; the
    products accumulate in f32 and the result stays f32, as do the bias,
    the activations and every other op. SRAM holds the weights at their
    width (docs/isa.md, "Native width"), so they take half the bytes: the
    largest share of a transformer's or a CNN's data.

    ```mlir
    %y = hgraph.linear %x, %w activation(none)
        : (tensor<4x32xf32>, tensor<32x10xf32>) -> tensor<4x10xf32>
    // becomes
    %x16 = hgraph.cast %x : tensor<4x32xf32> -> tensor<4x32xf16>
    %y = hgraph.linear %x16, %w16 activation(none)
        : (tensor<4x32xf16>, tensor<32x10xf16>) -> tensor<4x10xf32>
    ```

    `type=i8` (`--precision int8`, weight-only) stores the weight as int8
    with one f32 scale per output column, the column's largest magnitude
    over 127 (rounded to nearest, ties to even), and gives both to the
    layer (`hgraph.linear`'s `scale`); its input is cast to f16. The
    matrix unit multiplies f16: each int8 weight row is converted on its
    way to the plane (exact) and the sums are scaled before the bias.
    A weight that is not finite is refused, naming the node.

    ```mlir
    %q = hgraph.constant dense<...> : tensor<32x10xi8>
    %s = hgraph.constant dense<...> : tensor<10xf32>
    %x16 = hgraph.cast %x : tensor<4x32xf32> -> tensor<4x32xf16>
    %y = hgraph.linear %x16, %q scale(%s : tensor<10xf32>) activation(none)
        : (tensor<4x32xf16>, tensor<32x10xi8>) -> tensor<4x10xf32>
    ```
  }];
  let options = [
    Option<"type", "type", "std::string", /*default=*/"\"f16\"",
           "The weights' element type: f16, bf16 or i8">,
  ];
  let dependentDialects = ["::hetc::hgraph::HGraphDialect"];
}

//===----------------------------------------------------------------------===//
// hgraph -> htile
//===----------------------------------------------------------------------===//

def ConvertHGraphToHTile : Pass<"hetc-convert-hgraph-to-htile", "mlir::ModuleOp"> {
  let summary = "Bufferises hgraph into htile kernels tiled for the chip";
  let description = [{
    Turns `func.func @main` over tensors into a function of htile buffers
    and kernels: arguments become `htile.input`, constants
    `htile.constant`, each result an `htile.alloc` written by one kernel,
    and results `htile.output`. Matrix kernels get tiles matching the
    chip's planes and vector width. Data-movement ops (concat, split,
    slice, pad, tile, expand, constant-index gathers, transposes and
    reshapes that move the innermost dimension) become `htile.gather` with
    an index map computed at compile time. Ops the chip cannot run yet (for
    instance a reduction over a leading axis) are reported, all at once,
    at their ONNX node.
  }];
  let dependentDialects = ["::hetc::htile::HTileDialect"];
}

def HTileFuseGathers : Pass<"hetc-htile-fuse-gathers", "mlir::func::FuncOp"> {
  let summary = "Fuses a gather of a gather into one gather";
  let description = [{
    An `htile.gather` whose one input is an `htile.alloc` that another
    gather alone fills, and that it alone reads, reads through it: its
    indices are mapped through the first gather's (`-1` stays zero), and
    the first gather and the buffer between go. Nothing may write the first
    gather's inputs between the two. A split followed by a reshape that
    changes the row length then assembles its vectors on a switch unit
    once instead of twice. The fused gather is located at both nodes, its
    own first.

    ```mlir
    htile.gather ins(%x) outs(%a) indices [2, 3] : (memref<4xf32>) -> memref<2xf32>
    htile.gather ins(%a) outs(%b) indices [1, -1, 0] : (memref<2xf32>) -> memref<3xf32>
    // becomes
    htile.gather ins(%x) outs(%b) indices [3, -1, 2] : (memref<4xf32>) -> memref<3xf32>
    ```
  }];
}

def HTileTransposeWeights : Pass<"hetc-htile-transpose-weights",
                                 "mlir::func::FuncOp"> {
  let summary = "Holds f32 constant weights transposed where that pads less";
  let description = [{
    Each row of a buffer starts a new vector, so a K x N weight takes
    `K * ceil(N / lanes)` vectors: a narrow or ragged N pads every row (a
    384-wide row takes 640 lanes on tsp-v1). Held N x K it takes
    `N * ceil(K / lanes)`, and the planes install it column by column
    (htile.matmul's `transposed`, M_LOAD_WEIGHTS_COLUMN), one load a vector
    either way, so the layout that takes fewer vectors also installs
    faster.

    An f32 constant used only as the untransposed, unscaled weight of tiled
    matmuls of its own type is rewritten transposed when that takes fewer
    vectors (the lanes are the matmuls' tile). Narrower weights share SRAM
    rows and are interleaved instead (`hetc-htile-interleave-weights`); a
    constant another kernel reads keeps its layout.

    ```mlir
    %w = htile.constant dense<...> : tensor<4x3xf32> : memref<4x3xf32>
    htile.matmul ins(%x, %w) outs(%y) activation(none)
        {tile = array<i64: 1, 4, 4>} : memref<1x4xf32>, memref<4x3xf32>, memref<1x3xf32>
    // becomes (4 vectors of 3 lanes held as 3 of 4)
    %w = htile.constant dense<...> : tensor<3x4xf32> : memref<3x4xf32>
    htile.matmul ins(%x, %w) transposed outs(%y) activation(none)
        {tile = array<i64: 1, 4, 4>} : memref<1x4xf32>, memref<3x4xf32>, memref<1x3xf32>
    ```
  }];
}

def HTilePackColumns : Pass<"hetc-htile-pack-columns", "mlir::func::FuncOp"> {
  let summary = "Holds constant per-row columns one value a lane";
  let description = [{
    A constant column R x 1 (a depthwise convolution's weights for one
    kernel element, a per-channel scale or bias) takes a vector per row
    for the whole program: 320 lanes for one value on tsp-v1. One that is
    read only as an operand spread over the rows of binary kernels (and by
    the kernel plan's depthwise convolution, which takes its columns as R
    values) is rewritten as a 1-D constant of R elements, a lane each, and
    the kernels take it as htile.binary's `column`: their expansion reads
    the vector that holds row r and spreads its lane (`hisa.vbroadcast`),
    where it spread lane 0 of the row's own vector. The constant holds the
    values twice (2 x R), and consecutive rows read alternate copies: one
    copy would serve a kernel's every row from one bank, a read a cycle.
    The kernel plan's convolution reads the first copy through a view. f32
    and i32 columns of at least two rows only.

    ```mlir
    %t = htile.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32> : memref<2x1xf32>
    htile.binary mul ins(%x, %t) outs(%y) : memref<1x2x9xf32>, memref<2x1xf32>, memref<1x2x9xf32>
    // becomes
    %t = htile.constant dense<[[1.0, 2.0], [1.0, 2.0]]> : tensor<2x2xf32> : memref<2x2xf32>
    htile.binary mul ins(%x, %t) column(rhs) outs(%y) : memref<1x2x9xf32>, memref<2x2xf32>, memref<1x2x9xf32>
    ```
  }];
}

def HTileInterleaveWeights : Pass<"hetc-htile-interleave-weights",
                                  "mlir::func::FuncOp"> {
  let summary = "Lays out narrow constant weights so that one load installs "
                "a whole SRAM row";
  let description = [{
    An SRAM row holds two f16 or bf16 vectors, or four i8 or ui8 ones. In a
    weight's own layout they are neighbouring column tiles of one row of
    the weight, which go to different planes; a plane then takes one row
    per load, and `matrix.install_rows` loads a cycle install a quarter
    (f16) or an eighth (i8) of the bytes the streams into it carry.

    A constant used only as the weight of matmuls that take it untransposed
    in the input's type, or as an i8 weight converted to their f16 or bf16
    input (and have a tile whose k is a multiple of p), is rewritten with
    p rows of each n-wide column tile side by side (htile.matmul's
    `interleave`; p, the vectors of the input's type an SRAM row holds, is
    2 for 16-bit and 4 for 8-bit inputs):
    one SRAM row then holds p consecutive rows of one tile, read at once
    and installed by one M_LOAD_WEIGHTS. The constant grows only by the
    padding the last column tile and K's last rows had in SRAM anyway.

    ```mlir
    %w = htile.constant dense<...> : tensor<3x4xf16> : memref<3x4xf16>
    htile.matmul ins(%x, %w) outs(%y) activation(none)
        {tile = array<i64: 1, 4, 4>} : memref<1x3xf16>, memref<3x4xf16>, memref<1x4xf32>
    // becomes (rows 0 and 1 of the tile side by side, row 2 beside zeros)
    %w = htile.constant dense<...> : tensor<2x8xf16> : memref<2x8xf16>
    htile.matmul ins(%x, %w) interleave 2 outs(%y) activation(none)
        {tile = array<i64: 1, 4, 4>} : memref<1x3xf16>, memref<2x8xf16>, memref<1x4xf32>
    ```
  }];
}

def HTilePlanMemory : Pass<"hetc-htile-plan-memory", "mlir::ModuleOp"> {
  let summary = "Places every htile buffer in SRAM by liveness";
  let options = [
    Option<"packResident", "pack-resident", "bool", /*default=*/"false",
           "Place the inputs and constants packed from the lowest address "
           "first, leaving the rest of SRAM one run">,
    Option<"peakBuffers", "peak-buffers", "unsigned", /*default=*/"0",
           "Record this many of the buffers live at the SRAM peak, those "
           "with the most padding, as hetc.sram_peak_buffers">
  ];
  let description = [{
    Gives each `htile.input`, `htile.constant` and `htile.alloc` an
    `address` (its first vector). Inputs, constants and outputs live for
    the whole program; intermediate buffers from their kernel to their last
    use (through views), so buffers with disjoint lives share SRAM.
    Buffers are placed largest first, each in a gap left by the buffers
    live at the same time (greedy by size): spread over slices, clear of
    the other buffers of its kernels, while that leaves room; otherwise
    packed, each in the smallest gap that fits (best fit). The function
    gets `hetc.sram_peak_vectors`, the most vectors live at once, and
    `hetc.sram_peak_tensor_bytes`, the bytes the tensors live then hold at
    their own width. A program whose peak exceeds SRAM is reported with
    the bytes it needs and the number of chips it would take.

    With `peak-buffers n`, the function also gets `hetc.sram_peak_buffers`:
    the n buffers live at the peak whose vectors hold the most bytes beyond
    their tensor's (padding), most first, each a dictionary of `node` (its
    ONNX node), `type`, `vectors` and `tensor_bytes` (`hetc compile
    --sram-peak`).

    A module with a `hetc.shared_layout` (compiler/passes/SharedLayout.h:
    what another program on the same SRAM keeps from run to run, such as
    the decode step a prefill program runs between) is placed into it: an
    input named as one of its resident inputs takes that input's address
    (and must have its type), a constant of the same type and contents as
    one of its constants takes that constant's address, and every other
    buffer keeps clear of all the layout keeps. The figures count the
    program's own buffers.

    With `pack-resident` (which the compile pipeline sets), the buffers
    live for the whole program (inputs and constants) are placed first,
    packed at the two ends of SRAM, largest first, the free run between
    them kept centred on the vector unit; the others then as above, in
    that run. The weights lie nearer the matrix planes at the chip's
    edges, the intermediates near the vector unit, and a program sharing
    this one's layout (a decode step's prefill) finds the run whole. When
    that leaves some buffer without room, everything is placed together
    as without the option. A program placed into a shared layout does not
    pack its own.

    ```mlir
    module attributes {hetc.shared_layout = {kept = array<i64: 0, 2>,
        constants = array<i64>, inputs = {past = [0, "memref<2x32xf32>"]}}} {
      func.func @main() {
        %p = htile.input "past" : memref<2x32xf32>   // address = 0
        ...
    ```
  }];
}

def HTilePhysicalBound : Pass<"hetc-htile-physical-bound", "mlir::ModuleOp"> {
  let summary = "Records the chip's physical limit for the htile kernels";
  let description = [{
    Counts what the kernels must do whatever their placement: multiply-
    accumulates on the matrix unit by the width of the weights (8-bit,
    16-bit, 32-bit), the bytes installed into the planes as weights, the
    bytes read from and written to SRAM (each kernel operand once, at its
    element width) and the vector unit's lane operations. Each, divided by
    the published chip's peak rate for it, is a number of cycles no
    schedule can beat; the function gets the largest as
    `hetc.physical_bound` and all four in `hetc.physical_bound_reason`.
    The rates and their sources are in docs/performance.md.

    ```mlir
    func.func @main() attributes {hetc.physical_bound = 4 : i64,
        hetc.physical_bound_reason = "bound by SRAM; matrix 1, weight install 1, SRAM 4, vector 1 cycles"}
    ```
  }];
}

//===----------------------------------------------------------------------===//
// htile -> hisa
//===----------------------------------------------------------------------===//

def ConvertHTileToHIsa : Pass<"hetc-convert-htile-to-hisa", "mlir::ModuleOp"> {
  let summary = "Expands htile kernels into hisa instructions";
  let description = [{
    Emits one hisa op per chip instruction: reads and writes of each
    vector, vector-unit operations, weight loads, matrix multiplies and
    switch-unit lane permutes (for `htile.gather`, switch units in turn).
    Buffer bindings become `hisa.input`, `hisa.output` and
    `hisa.constant`. Instructions keep the location (ONNX node) of their
    kernel. The result is unscheduled: no op has a cycle yet.
  }];
  let dependentDialects = ["::hetc::hisa::HIsaDialect"];
}

def HIsaStageIO : Pass<"hetc-hisa-stage-io", "mlir::ModuleOp"> {
  let summary = "Moves the model's inputs and outputs through host memory by DMA";
  let description = [{
    Gives every `hisa.input` and `hisa.output` a host-memory address (the
    tensors one after another, each laid out as in SRAM) and adds one
    `hisa.dma_in` per vector of each input before the first instruction and
    one `hisa.dma_out` per vector of each output at the end, using the
    chip's DMA engines in turn. The program then starts with its inputs in
    host memory and ends with its outputs there, so its cycle count
    includes moving them across the host interface. Bindings that already
    have a host address are left alone.

    ```mlir
    hisa.input "x" at 0 : tensor<2x16xf32>
    // becomes
    hisa.input "x" at 0 host 0 : tensor<2x16xf32>
    hisa.dma_in host 0 to 0 engine 0
    hisa.dma_in host 1 to 1 engine 1
    ```
  }];
  let dependentDialects = ["::hetc::hisa::HIsaDialect"];
}

def HIsaSchedule : Pass<"hetc-hisa-schedule", "mlir::ModuleOp"> {
  let summary = "Gives every hisa instruction its issue cycle and stream group";
  let description = [{
    Builds a scheduling problem from the instructions (resources and
    latencies from the chip file, exact stream timing between producers
    and readers, SRAM and weight-buffer dependences from addresses and
    planes), solves it with the hetc scheduling library, and stamps each op
    with `at <cycle>` and each stream value with `on <direction, group>`.
    The function gets `hetc.predicted_cycles`, `hetc.lower_bound` (with
    `hetc.lower_bound_reason`) and `hetc.instructions` attributes.
  }];
}

#endif // HETC_PASSES
