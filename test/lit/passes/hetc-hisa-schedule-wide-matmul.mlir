// RUN: hetc-opt %s --split-input-file --hetc-hgraph-pipeline --hetc-set-chip=file=%S/../Inputs/wide-matmul.chip --hetc-htile-pipeline --hetc-hisa-pipeline | FileCheck %s
// RUN: hetc-opt %s --split-input-file --hetc-hgraph-pipeline --hetc-set-chip=file=%chips/test-chip.chip --hetc-htile-pipeline --hetc-hisa-pipeline | FileCheck %s --check-prefix=NARROW

// On wide-matmul.chip a plane is busy 3 cycles per f32 M_MATMUL and 2 per
// f16 one: the four rows' products on plane 0 issue that far apart, in
// program order. On test-chip (one cycle for every width) they issue on
// consecutive cycles. The physical bound counts the slower rate: 1024 MACs
// at 512 / 3 = 170 per cycle take 7 cycles, at 512 / 2 = 256 take 4; on
// test-chip they take 2, below the 6 cycles of SRAM traffic.

// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.physical_bound = 7 : i64
// CHECK: hisa.matmul %{{.*}} plane 0 at [[#T:]]
// CHECK: hisa.matmul %{{.*}} plane 0 at [[#T+3]]
// CHECK: hisa.matmul %{{.*}} plane 0 at [[#T+6]]
// CHECK: hisa.matmul %{{.*}} plane 0 at [[#T+9]]
// NARROW-LABEL: func.func @main()
// NARROW-SAME: hetc.physical_bound = 6 : i64
// NARROW: hisa.matmul %{{.*}} plane 0 at [[#N:]]
// NARROW: hisa.matmul %{{.*}} plane 0 at [[#N+1]]
// NARROW: hisa.matmul %{{.*}} plane 0 at [[#N+2]]
// NARROW: hisa.matmul %{{.*}} plane 0 at [[#N+3]]
func.func @main(%x: tensor<4x16xf32> {hgraph.name = "x"}) -> (tensor<4x16xf32> {hgraph.name = "y"}) {
  %w = hgraph.constant dense<0.5> : tensor<16x16xf32>
  %y = hgraph.matmul %x, %w : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @main()
// CHECK-SAME: hetc.physical_bound = 4 : i64
// CHECK: hisa.matmul %{{.*}} plane 0 as f16 at [[#T:]]
// CHECK: hisa.matmul %{{.*}} plane 0 as f16 at [[#T+2]]
// CHECK: hisa.matmul %{{.*}} plane 0 as f16 at [[#T+4]]
// CHECK: hisa.matmul %{{.*}} plane 0 as f16 at [[#T+6]]
// NARROW-LABEL: func.func @main()
// NARROW: hisa.matmul %{{.*}} plane 0 as f16 at [[#N:]]
// NARROW: hisa.matmul %{{.*}} plane 0 as f16 at [[#N+1]]
func.func @main(%x: tensor<4x16xf16> {hgraph.name = "x"}) -> (tensor<4x16xf16> {hgraph.name = "y"}) {
  %w = hgraph.constant dense<0.5> : tensor<16x16xf16>
  %y = hgraph.matmul %x, %w : (tensor<4x16xf16>, tensor<16x16xf16>) -> tensor<4x16xf16>
  return %y : tensor<4x16xf16>
}
