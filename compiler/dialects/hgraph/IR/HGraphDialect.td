//===- HGraphDialect.td - The hgraph dialect definition ----*- tablegen -*-===//

#ifndef HETC_HGRAPH_DIALECT
#define HETC_HGRAPH_DIALECT

include "mlir/IR/OpBase.td"

def HGraph_Dialect : Dialect {
  let name = "hgraph";
  let cppNamespace = "::hetc::hgraph";
  let summary = "Graph-level tensor operators with ONNX semantics";
  let description = [{
    The `hgraph` dialect is the first level of hetc. Its operators mirror
    ONNX operators on ranked, statically shaped tensors with value
    semantics; verifiers check the ONNX rules (broadcasting, axes, element
    types). Each op's location carries the name of the ONNX node it came
    from. A model is a `func.func` whose arguments and results carry their
    ONNX names in the `hgraph.name` attribute.

    ```mlir
    func.func @main(%x: tensor<4x32xf32> {hgraph.name = "x"})
        -> (tensor<4x10xf32> {hgraph.name = "y"}) {
      %w = hgraph.constant dense<0.5> : tensor<32x10xf32>
      %y = hgraph.matmul %x, %w : (tensor<4x32xf32>, tensor<32x10xf32>) -> tensor<4x10xf32>
      return %y : tensor<4x10xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let hasConstantMaterializer = 1;
}

class HGraph_Op<string mnemonic, list<Trait> traits = []>
    : Op<HGraph_Dialect, mnemonic, traits>;

#endif // HETC_HGRAPH_DIALECT
