//===- HGraphShape.td - hgraph data movement and reductions -*- tablegen -*-===//
//
// Operators that move, select or combine elements without arithmetic
// (concat, split, slice, gather, expand, tile, pad, trilu) and the
// reductions. All attributes are resolved by the importer: axes are
// non-negative and shapes static, so verifiers check plain arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_HGRAPH_SHAPE
#define HETC_HGRAPH_SHAPE

include "compiler/dialects/hgraph/IR/HGraphDialect.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def HGraph_ConcatOp : HGraph_Op<"concat", [Pure]> {
  let summary = "Joins tensors along one axis (ONNX Concat)";
  let description = [{
    All operands have the result's rank and element type and agree on every
    dimension except `axis`, whose sizes add up to the result's.

    ```mlir
    %0 = hgraph.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyStaticShapeTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` `(` type($inputs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_SplitOp : HGraph_Op<"split", [Pure]> {
  let summary = "Cuts a tensor into consecutive pieces along one axis (ONNX Split)";
  let description = [{
    The pieces' sizes along `axis` are those of the result types and add up
    to the input's size there.

    ```mlir
    %0:2 = hgraph.split %x {axis = 0 : i64} : tensor<6x4xf32> -> (tensor<2x4xf32>, tensor<4x4xf32>)
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$axis);
  let results = (outs Variadic<AnyStaticShapeTensor>:$results);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` `(` type($results) `)`";
  let hasVerifier = 1;
}

def HGraph_SliceOp : HGraph_Op<"slice", [Pure]> {
  let summary = "Takes a strided window of a tensor (ONNX Slice)";
  let description = [{
    Along each dimension `d`, result index `i` reads input index
    `starts[d] + i * steps[d]`; `starts` are clamped, non-negative indices
    and `steps` non-zero (negative steps walk backwards). The importer
    resolves ONNX's starts, ends, axes and steps to this form.

    ```mlir
    %0 = hgraph.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<4x8xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$steps);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_GatherOp : HGraph_Op<"gather", [Pure]> {
  let summary = "Picks slices along one axis by index (ONNX Gather)";
  let description = [{
    The result shape is `input[:axis] + indices + input[axis+1:]`; negative
    indices count from the end.

    ```mlir
    %0 = hgraph.gather %table, %ids {axis = 0 : i64} : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$indices,
                       I64Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` `(` type($input) `,` type($indices) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_GatherRowsOp : HGraph_Op<"gather_rows", [Pure]> {
  let summary = "Picks rows of a table by run-time index; an index outside the table is an error";
  let description = [{
    Row `i` of a table is `table[i]`, its slice along the first dimension.
    The result shape is `indices + table[1:]`: result element
    `[n..., r...]` is `table[indices[n...], r...]`. The indices must lie in
    `[0, table rows)`; one outside stops the program at run time with an
    error naming the op's node (the chip never substitutes a row or zero).
    `hetc-hgraph-decompose` makes it of an ONNX Gather along axis 0 of a
    table of rank 2 or more (an embedding lookup, or rows of a computed
    tensor), after counting negative indices from the end; it costs in
    proportion to the rows it reads.

    ```mlir
    %0 = hgraph.gather_rows %table, %ids : (tensor<30522x256xf32>, tensor<1x128xi64>) -> tensor<1x128x256xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$table, AnyStaticShapeTensor:$indices);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $table `,` $indices attr-dict `:` `(` type($table) `,` type($indices) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_ScatterRowsOp : HGraph_Op<"scatter_rows", [Pure]> {
  let summary = "Replaces rows of a table by run-time index; an index outside the table is an error";
  let description = [{
    Row `i` of a table is `table[i]`, its slice along the first dimension.
    The result is the table with row `indices[n...]` replaced by
    `updates[n...]` for every `n`, in row-major order of `indices` (so of
    two updates of one row, the later stays); `updates` has the shape
    `indices + table[1:]`. The indices must lie in `[0, table rows)`; one
    outside stops the program at run time with an error naming the op's
    node, and nothing is written elsewhere. ONNX ScatterND with
    `reduction` none and run-time indices imports as it (a KV-cache
    update is one); it costs, per update, in proportion to the row it
    writes, and a copy of the table when another op reads the table too
    (otherwise the table's buffer is written in place).

    ```mlir
    %0 = hgraph.scatter_rows %cache, %pos, %kv : (tensor<2048x64xf16>, tensor<1xi64>, tensor<1x64xf16>) -> tensor<2048x64xf16>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$table,
                       AnyStaticShapeTensor:$indices,
                       AnyStaticShapeTensor:$updates);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $table `,` $indices `,` $updates attr-dict `:` `(` type($table) `,`
    type($indices) `,` type($updates) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_GatherElementsOp : HGraph_Op<"gather_elements", [Pure]> {
  let summary = "Picks single elements along one axis by index (ONNX GatherElements)";
  let description = [{
    `result[i][j]... = input[..][indices[i][j]...][..]` with the index used
    along `axis`; `indices` and the result have the same shape.

    ```mlir
    %0 = hgraph.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, AnyStaticShapeTensor:$indices,
                       I64Attr:$axis);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` `(` type($input) `,` type($indices) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_ExpandOp : HGraph_Op<"expand", [Pure]> {
  let summary = "Broadcasts a tensor to a larger shape (ONNX Expand)";
  let description = [{
    The result shape is the ONNX broadcast of the input shape and the
    requested one, resolved by the importer.

    ```mlir
    %0 = hgraph.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_TileOp : HGraph_Op<"tile", [Pure]> {
  let summary = "Repeats a tensor along each dimension (ONNX Tile)";
  let description = [{
    Result dimension `d` is `input[d] * repeats[d]`.

    ```mlir
    %0 = hgraph.tile %x {repeats = array<i64: 2, 1>} : tensor<3x4xf32> -> tensor<6x4xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_PadOp : HGraph_Op<"pad", [Pure]> {
  let summary = "Pads a tensor at both ends of each dimension (ONNX Pad)";
  let description = [{
    `pads` holds the begin counts of every dimension, then the end counts
    (negative counts crop). `mode` is `constant`, `reflect`, `edge` or
    `wrap`; in constant mode `value` (a scalar, default zero) fills.

    ```mlir
    %0 = hgraph.pad %x {mode = "constant", pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       Optional<AnyStaticShapeTensor>:$value,
                       DenseI64ArrayAttr:$pads, StrAttr:$mode);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = [{
    $input (`,` $value^)? attr-dict `:` `(` type($input) (`,` type($value)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_TriluOp : HGraph_Op<"trilu", [Pure, SameOperandsAndResultType]> {
  let summary = "Keeps the upper or lower triangle of the last two dimensions (ONNX Trilu)";
  let description = [{
    With `upper`, keeps elements with `col - row >= k`; otherwise those with
    `col - row <= k`; the rest become zero.

    ```mlir
    %0 = hgraph.trilu %x {k = 0 : i64, upper = true} : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$k, BoolAttr:$upper);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def HGraph_ReduceKindAttr : I32EnumAttr<"ReduceKind", "how a reduction combines elements", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"prod", 4>, I32EnumAttrCase<"sum_square", 5>,
    I32EnumAttrCase<"l1", 6>, I32EnumAttrCase<"l2", 7>,
    I32EnumAttrCase<"log_sum", 8>, I32EnumAttrCase<"log_sum_exp", 9>]> {
  let cppNamespace = "::hetc::hgraph";
}

def HGraph_ReduceOp : HGraph_Op<"reduce", [Pure]> {
  let summary = "Reduces a tensor over some axes (ONNX Reduce*)";
  let description = [{
    Combines the elements along `axes` (sorted, non-negative, possibly
    empty: then the op is the identity) with `kind`. With `keepdims` the
    reduced dimensions stay with size 1, otherwise they are dropped. The
    importer resolves ONNX's empty-axes and `noop_with_empty_axes` rules.
    GlobalAveragePool and GlobalMaxPool import as this op.

    ```mlir
    %0 = hgraph.reduce mean %x {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins HGraph_ReduceKindAttr:$kind, AnyStaticShapeTensor:$input,
                       DenseI64ArrayAttr:$axes, BoolAttr:$keepdims);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_CumulativeOp : HGraph_Op<"cumulative", [Pure, SameOperandsAndResultType]> {
  let summary = "Running sums or products along an axis (ONNX CumSum, CumProd)";
  let description = [{
    `kind` is `sum` or `prod`. Element i along `axis` combines elements 0..i
    (0..i-1 with `exclusive`, whose first element is the identity); with
    `reverse` the run goes from the end. `hetc-hgraph-decompose` expresses
    it as log2(n) shifted adds (or multiplies).

    ```mlir
    %0 = hgraph.cumulative sum %x {axis = 1 : i64, exclusive = false, reverse = false} : tensor<2x5xf32>
    ```
  }];
  let arguments = (ins HGraph_ReduceKindAttr:$kind, AnyStaticShapeTensor:$input,
                       I64Attr:$axis, BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def HGraph_ArgMaxOp : HGraph_Op<"arg_max", [Pure]> {
  let summary = "Index of the largest (or smallest) element along an axis (ONNX ArgMax/ArgMin)";
  let description = [{
    Returns `i64` indices; `min` selects ArgMin. Ties pick the first index,
    or the last with `select_last_index`.

    ```mlir
    %0 = hgraph.arg_max %x {axis = 1 : i64, keepdims = false, min = false, select_last_index = false} : tensor<4x8xf32> -> tensor<4xi64>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input, I64Attr:$axis,
                       BoolAttr:$keepdims, BoolAttr:$min,
                       BoolAttr:$select_last_index);
  let results = (outs AnyStaticShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // HETC_HGRAPH_SHAPE
