//===- HGraphOps.td - hgraph operators ---------------------*- tablegen -*-===//

#ifndef HETC_HGRAPH_OPS
#define HETC_HGRAPH_OPS

include "compiler/dialects/hgraph/IR/HGraphDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

defvar HGraph_Tensor = AnyStaticShapeTensor;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def HGraph_ConstantOp : HGraph_Op<"constant", [Pure, ConstantLike,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "A constant tensor (an ONNX initializer or Constant node)";
  let description = [{
    Produces the tensor held in `value`. ONNX initializers and `Constant`
    nodes both import as this op; its type is the type of `value`.

    ```mlir
    %w = hgraph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class HGraph_BinaryOp<string mnemonic, string onnxName>
    : HGraph_Op<mnemonic, [Pure]> {
  let summary = "Elementwise " # onnxName # " with ONNX multidirectional broadcasting";
  let description = [{
    Computes the ONNX `}] # onnxName # [{` of `lhs` and `rhs` elementwise.
    The operand shapes broadcast as numpy does (ONNX multidirectional
    broadcasting); the result has the broadcast shape.

    ```mlir
    %0 = hgraph.}] # mnemonic # [{ %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$lhs, HGraph_Tensor:$rhs);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_AddOp : HGraph_BinaryOp<"add", "Add">;
def HGraph_SubOp : HGraph_BinaryOp<"sub", "Sub">;
def HGraph_MulOp : HGraph_BinaryOp<"mul", "Mul">;
def HGraph_DivOp : HGraph_BinaryOp<"div", "Div">;

class HGraph_UnaryOp<string mnemonic, string onnxName, string formula>
    : HGraph_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "Elementwise " # onnxName # ": " # formula;
  let description = [{
    Computes the ONNX `}] # onnxName # [{` of each element: }] # formula # [{.

    ```mlir
    %0 = hgraph.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$input);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def HGraph_ReluOp : HGraph_UnaryOp<"relu", "Relu", "max(x, 0)">;
def HGraph_SigmoidOp : HGraph_UnaryOp<"sigmoid", "Sigmoid", "1 / (1 + exp(-x))">;
def HGraph_TanhOp : HGraph_UnaryOp<"tanh", "Tanh", "tanh(x)">;

def HGraph_SoftmaxOp : HGraph_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "Softmax along one axis (ONNX Softmax, opset 13 and later)";
  let description = [{
    Computes `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`
    (negative values count from the end). Opsets before 13 flatten the
    input at `axis` instead; the importer rewrites those to this form when
    the two agree and rejects them otherwise.

    ```mlir
    %0 = hgraph.softmax %x {axis = -1 : i64} : tensor<4x10xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$input, I64Attr:$axis);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def HGraph_MatMulOp : HGraph_Op<"matmul", [Pure]> {
  let summary = "Matrix product with numpy semantics (ONNX MatMul)";
  let description = [{
    Multiplies `lhs` by `rhs` as `numpy.matmul` does: rank-1 operands are
    promoted, leading (batch) dimensions broadcast.

    ```mlir
    %0 = hgraph.matmul %x, %w : (tensor<4x32xf32>, tensor<32x10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$lhs, HGraph_Tensor:$rhs);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_GemmOp : HGraph_Op<"gemm", [Pure]> {
  let summary = "General matrix multiply: alpha * A' * B' + beta * C (ONNX Gemm)";
  let description = [{
    Computes `alpha * op(a) * op(b) + beta * c` where `op` transposes its
    2-D operand when `trans_a` / `trans_b` is set; `c` is optional and
    broadcasts to the result. `hetc-hgraph-decompose` rewrites it into
    `transpose`, `matmul`, `mul` and `add`.

    ```mlir
    %0 = hgraph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
        : (tensor<4x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$a, HGraph_Tensor:$b,
                       Optional<HGraph_Tensor>:$c,
                       DefaultValuedAttr<F32Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F32Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` `(` type($a) `,` type($b) (`,` type($c)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def HGraph_ActivationAttr : I32EnumAttr<"Activation", "activation applied after a linear op", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"sigmoid", 2>, I32EnumAttrCase<"tanh", 3>]> {
  let cppNamespace = "::hetc::hgraph";
}

def HGraph_LinearOp : HGraph_Op<"linear", [Pure, AttrSizedOperandSegments]> {
  let summary = "Fused 2-D matmul, bias add and activation";
  let description = [{
    `activation(input * weight + bias)` for a 2-D `input` (M x K), a 2-D
    `weight` (K x N) and an optional `bias` that broadcasts along rows (shape
    N or 1 x N). Produced by `hetc-hgraph-fuse-linear`; it maps to one
    matrix-unit kernel with a vector-unit epilogue.

    With `scale` (f32, N or 1 x N), the product is scaled per output
    column before the bias: `activation(input * weight * scale + bias)`.
    An int8 weight (`--precision int8`) takes one: each weight row is
    converted to the input's type (f16 or bf16, exact for int8) on its way
    to the matrix unit, and the column scales apply to the sums.

    With `transposed`, `weight` is given as N x K and multiplied
    transposed: `activation(input * transpose(weight) + bias)`. The matrix
    unit installs its rows as weight columns, so a product by a computed
    transpose (the keys of attention, `q * transpose(k)`) needs no transpose
    of its own. A transposed weight is a float of the input's type,
    without a scale.

    ```mlir
    %0 = hgraph.linear %x, %w, %b activation(relu)
        : (tensor<4x32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
    %1 = hgraph.linear %x16, %q, %b scale(%s : tensor<10xf32>) activation(none)
        : (tensor<4x32xf16>, tensor<32x10xi8>, tensor<10xf32>) -> tensor<4x10xf32>
    %2 = hgraph.linear %q, %k transposed activation(none)
        : (tensor<1x64xf32>, tensor<128x64xf32>) -> tensor<1x128xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$input, HGraph_Tensor:$weight,
                       Optional<HGraph_Tensor>:$bias,
                       Optional<HGraph_Tensor>:$scale,
                       HGraph_ActivationAttr:$activation,
                       UnitAttr:$transposed);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`transposed` $transposed^)?
    (`scale` `(` $scale^ `:` type($scale) `)`)?
    `activation` `(` $activation `)` attr-dict `:`
    `(` type($input) `,` type($weight) (`,` type($bias)^)? `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def HGraph_ReshapeOp : HGraph_Op<"reshape", [Pure]> {
  let summary = "Reinterprets a tensor with a new static shape (ONNX Reshape)";
  let description = [{
    Returns `input` with the shape of the result type; the element count
    must not change. The importer resolves ONNX's shape operand (with its
    `0` and `-1` entries) to the static result type.

    ```mlir
    %0 = hgraph.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$input);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def HGraph_TransposeOp : HGraph_Op<"transpose", [Pure]> {
  let summary = "Permutes the dimensions of a tensor (ONNX Transpose)";
  let description = [{
    Result dimension `i` is input dimension `perm[i]`; `perm` is a
    permutation of `[0, rank)`.

    ```mlir
    %0 = hgraph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins HGraph_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs HGraph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

include "compiler/dialects/hgraph/IR/HGraphElementwise.td"
include "compiler/dialects/hgraph/IR/HGraphShape.td"
include "compiler/dialects/hgraph/IR/HGraphNN.td"

#endif // HETC_HGRAPH_OPS
