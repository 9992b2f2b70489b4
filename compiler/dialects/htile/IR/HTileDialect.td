//===- HTileDialect.td - The htile dialect definition ------*- tablegen -*-===//

#ifndef HETC_HTILE_DIALECT
#define HETC_HTILE_DIALECT

include "mlir/IR/OpBase.td"

def HTile_Dialect : Dialect {
  let name = "htile";
  let cppNamespace = "::hetc::htile";
  let summary = "Kernels over chip-sized tiles with explicit SRAM buffers";
  let description = [{
    The `htile` dialect is hetc's kernel level. Tensors become buffers
    (`memref`s) placed in the chip's SRAM at vector addresses, and each
    computation is one kernel op whose tile sizes match the chip's matrix
    and vector geometry. A buffer of shape `[d0, ..., dn]` is laid out as
    `d0 * ... * d(n-1)` rows of `dn` elements; each row takes
    `ceil(dn / lanes)` consecutive vectors, padding lanes zero.

    ```mlir
    func.func @main() {
      %x = htile.input "x" : memref<4x32xf32>
      %w = htile.constant dense<0.5> : tensor<32x10xf32> : memref<32x10xf32>
      %y = htile.alloc : memref<4x10xf32>
      htile.matmul ins(%x, %w) outs(%y) activation(none)
          : memref<4x32xf32>, memref<32x10xf32>, memref<4x10xf32>
      htile.output "y", %y : memref<4x10xf32>
      return
    }
    ```
  }];
}

class HTile_Op<string mnemonic, list<Trait> traits = []>
    : Op<HTile_Dialect, mnemonic, traits>;

#endif // HETC_HTILE_DIALECT
