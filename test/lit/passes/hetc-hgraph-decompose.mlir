// RUN: hetc-opt %s --split-input-file --hetc-hgraph-decompose | FileCheck %s

// Tests that a Gemm with transB, alpha and beta becomes transpose, matmul,
// scaling muls and an add.
// CHECK-LABEL: func.func @gemm_full
func.func @gemm_full(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>, %c: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK-DAG: %[[ALPHA:.*]] = hgraph.constant dense<5.000000e-01> : tensor<f32>
  // CHECK-DAG: %[[BETA:.*]] = hgraph.constant dense<2.000000e+00> : tensor<f32>
  // CHECK: %[[T:.*]] = hgraph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<3x8xf32> -> tensor<8x3xf32>
  // CHECK: %[[M:.*]] = hgraph.matmul %{{.*}}, %[[T]] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  // CHECK: %[[S:.*]] = hgraph.mul %[[M]], %[[ALPHA]]
  // CHECK: %[[C:.*]] = hgraph.mul %{{.*}}, %[[BETA]]
  // CHECK: %[[R:.*]] = hgraph.add %[[S]], %[[C]] : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_b = true} : (tensor<4x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that a plain Gemm without C is just a matmul.
// CHECK-LABEL: func.func @gemm_plain
func.func @gemm_plain(%a: tensor<8x4xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  // CHECK: hgraph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<4x8xf32>
  // CHECK-NEXT: hgraph.matmul
  // CHECK-NEXT: return
  %0 = hgraph.gemm %a, %b {trans_a = true} : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests that beta = 0 drops C.
// CHECK-LABEL: func.func @gemm_beta_zero
func.func @gemm_beta_zero(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<3xf32>) -> tensor<4x3xf32> {
  // CHECK: hgraph.matmul
  // CHECK-NOT: hgraph.add
  // CHECK: return
  %0 = hgraph.gemm %a, %b, %c {beta = 0.0 : f32} : (tensor<4x8xf32>, tensor<8x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Tests LeakyRelu as max(x, alpha * x) (min for alpha above 1).
// CHECK-LABEL: func.func @leaky_relu
func.func @leaky_relu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-DAG: %[[A:.*]] = hgraph.constant dense<1.000000e-01> : tensor<f32>
  // CHECK-DAG: %[[B:.*]] = hgraph.constant dense<2.000000e+00> : tensor<f32>
  // CHECK: %[[S:.*]] = hgraph.mul %{{.*}}, %[[A]]
  // CHECK: hgraph.max %{{.*}}, %[[S]]
  // CHECK: %[[T:.*]] = hgraph.mul %{{.*}}, %[[B]]
  // CHECK: hgraph.min %{{.*}}, %[[T]]
  %0 = hgraph.leaky_relu %x {alpha = 0.1 : f32} : tensor<4xf32>
  %1 = hgraph.leaky_relu %x {alpha = 2.0 : f32} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests Clip as max with the lower bound, then min with the upper.
// CHECK-LABEL: func.func @clip
func.func @clip(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<f32>) -> tensor<4xf32> {
  // CHECK: %[[M:.*]] = hgraph.max %arg0, %arg1
  // CHECK: %[[N:.*]] = hgraph.min %[[M]], %arg2
  // CHECK: return %[[N]]
  %0 = hgraph.clip %x, min %lo, max %hi : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests Gelu through erf.
// CHECK-LABEL: func.func @gelu
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: hgraph.mul %arg0
  // CHECK: hgraph.erf
  // CHECK: hgraph.add
  // CHECK: hgraph.mul %arg0
  // CHECK: hgraph.mul
  // CHECK-NOT: hgraph.gelu
  %0 = hgraph.gelu %x {approximate = "none"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests LayerNormalization over the last axis in ONNX's order of operations.
// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[M:.*]] = hgraph.reduce mean %arg0 {axes = array<i64: 1>, keepdims = true} : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: %[[D:.*]] = hgraph.sub %arg0, %[[M]]
  // CHECK: %[[SQ:.*]] = hgraph.mul %[[D]], %[[D]]
  // CHECK: %[[V:.*]] = hgraph.reduce mean %[[SQ]]
  // CHECK: %[[E:.*]] = hgraph.add %[[V]], %{{.*}} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  // CHECK: %[[S:.*]] = hgraph.sqrt %[[E]]
  // CHECK: %[[N:.*]] = hgraph.div %[[D]], %[[S]]
  // CHECK: %[[G:.*]] = hgraph.mul %[[N]], %arg1
  // CHECK: hgraph.add %[[G]], %arg2
  %0 = hgraph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests RMSNormalization: no centring, no bias.
// CHECK-LABEL: func.func @rms_norm
func.func @rms_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[SQ:.*]] = hgraph.mul %arg0, %arg0
  // CHECK: hgraph.reduce mean %[[SQ]]
  // CHECK: hgraph.sqrt
  // CHECK: hgraph.div %arg0
  // CHECK-NOT: hgraph.sub
  %0 = hgraph.rms_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests that a matmul with a batched right operand becomes one 2-D matmul
// per batch element (slices of both operands), concatenated.
// CHECK-LABEL: func.func @batched_matmul
func.func @batched_matmul(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  // CHECK: hgraph.slice %{{.*}} {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x3x4xf32> -> tensor<1x3x4xf32>
  // CHECK: hgraph.slice %{{.*}} {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x4x5xf32> -> tensor<1x4x5xf32>
  // CHECK: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  // CHECK: hgraph.slice %{{.*}} {starts = array<i64: 1, 0, 0>
  // CHECK: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  // CHECK: %[[C:.*]] = hgraph.concat %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x3x5xf32>, tensor<1x3x5xf32>) -> tensor<2x3x5xf32>
  // CHECK: return %[[C]]
  %0 = hgraph.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Tests that a right operand that swaps its two innermost dimensions (the
// keys of attention) is sliced before the swap, each matrix transposed on
// its own, and that the whole operand is never transposed.
// CHECK-LABEL: func.func @transposed_keys
func.func @transposed_keys(%q: tensor<2x1x4xf32>, %k: tensor<2x6x4xf32>) -> tensor<2x1x6xf32> {
  // CHECK-NOT: tensor<2x4x6xf32>
  // CHECK: %[[S0:.*]] = hgraph.slice %{{.*}} {starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x6x4xf32> -> tensor<1x6x4xf32>
  // CHECK: %[[K0:.*]] = hgraph.reshape %[[S0]] : tensor<1x6x4xf32> -> tensor<6x4xf32>
  // CHECK: %[[T0:.*]] = hgraph.transpose %[[K0]] {perm = array<i64: 1, 0>} : tensor<6x4xf32> -> tensor<4x6xf32>
  // CHECK: hgraph.matmul %{{.*}}, %[[T0]] : (tensor<1x4xf32>, tensor<4x6xf32>) -> tensor<1x6xf32>
  // CHECK: hgraph.slice %{{.*}} {starts = array<i64: 1, 0, 0>, steps = array<i64: 1, 1, 1>} : tensor<2x6x4xf32> -> tensor<1x6x4xf32>
  // CHECK: hgraph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<6x4xf32> -> tensor<4x6xf32>
  // CHECK: hgraph.concat
  %t = hgraph.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x6x4xf32> -> tensor<2x4x6xf32>
  %0 = hgraph.matmul %q, %t : (tensor<2x1x4xf32>, tensor<2x4x6xf32>) -> tensor<2x1x6xf32>
  return %0 : tensor<2x1x6xf32>
}

// -----

// Tests that a transpose that also moves a batch dimension is not read
// through: the batched right operand is sliced after it.
// CHECK-LABEL: func.func @moved_batch
func.func @moved_batch(%q: tensor<2x1x4xf32>, %k: tensor<6x2x4xf32>) -> tensor<2x1x6xf32> {
  // CHECK: hgraph.transpose %{{.*}} {perm = array<i64: 1, 2, 0>} : tensor<6x2x4xf32> -> tensor<2x4x6xf32>
  // CHECK-COUNT-2: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<1x4xf32>, tensor<4x6xf32>) -> tensor<1x6xf32>
  %t = hgraph.transpose %k {perm = array<i64: 1, 2, 0>} : tensor<6x2x4xf32> -> tensor<2x4x6xf32>
  %0 = hgraph.matmul %q, %t : (tensor<2x1x4xf32>, tensor<2x4x6xf32>) -> tensor<2x1x6xf32>
  return %0 : tensor<2x1x6xf32>
}

// -----

// Tests that keys repeated for grouped-query attention (two key heads
// expanded to four query heads) are sliced from before the repeat, each
// key head once, and multiplied transposed by the two query heads of its
// group.
// CHECK-LABEL: func.func @grouped_keys
func.func @grouped_keys(%q: tensor<1x4x1x8xf32>, %k: tensor<1x2x6x8xf32>) -> tensor<1x4x1x6xf32> {
  // CHECK-NOT: hgraph.expand
  // CHECK: %[[K:.*]] = hgraph.reshape %{{.*}} : tensor<1x2x6x8xf32> -> tensor<2x6x8xf32>
  // CHECK: hgraph.slice %[[K]] {starts = array<i64: 0, 0, 0>
  // CHECK: %[[T0:.*]] = hgraph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<6x8xf32> -> tensor<8x6xf32>
  // CHECK: hgraph.matmul %{{.*}}, %[[T0]]
  // CHECK: hgraph.matmul %{{.*}}, %[[T0]]
  // CHECK: hgraph.slice %[[K]] {starts = array<i64: 1, 0, 0>
  // CHECK: %[[T1:.*]] = hgraph.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<6x8xf32> -> tensor<8x6xf32>
  // CHECK: hgraph.matmul %{{.*}}, %[[T1]]
  // CHECK: hgraph.matmul %{{.*}}, %[[T1]]
  // CHECK-NOT: hgraph.slice %[[K]]
  %0 = hgraph.reshape %k : tensor<1x2x6x8xf32> -> tensor<1x2x1x6x8xf32>
  %1 = hgraph.expand %0 : tensor<1x2x1x6x8xf32> -> tensor<1x2x2x6x8xf32>
  %2 = hgraph.reshape %1 : tensor<1x2x2x6x8xf32> -> tensor<1x4x6x8xf32>
  %t = hgraph.transpose %2 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x8xf32> -> tensor<1x4x8x6xf32>
  %s = hgraph.matmul %q, %t : (tensor<1x4x1x8xf32>, tensor<1x4x8x6xf32>) -> tensor<1x4x1x6xf32>
  return %s : tensor<1x4x1x6xf32>
}

// -----

// Tests that an expand that repeats the heads in another order (the group
// dimension expanded, not one after it) is not read through.
// CHECK-LABEL: func.func @tiled_heads
func.func @tiled_heads(%p: tensor<1x4x1x6xf32>, %v: tensor<1x2x6x8xf32>) -> tensor<1x4x1x8xf32> {
  // CHECK: hgraph.expand
  // CHECK-COUNT-4: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<1x6xf32>, tensor<6x8xf32>) -> tensor<1x8xf32>
  %0 = hgraph.reshape %v : tensor<1x2x6x8xf32> -> tensor<1x1x2x6x8xf32>
  %1 = hgraph.expand %0 : tensor<1x1x2x6x8xf32> -> tensor<1x2x2x6x8xf32>
  %2 = hgraph.reshape %1 : tensor<1x2x2x6x8xf32> -> tensor<1x4x6x8xf32>
  %s = hgraph.matmul %p, %2 : (tensor<1x4x1x6xf32>, tensor<1x4x6x8xf32>) -> tensor<1x4x1x8xf32>
  return %s : tensor<1x4x1x8xf32>
}

// -----

// Tests that a broadcast left matrix is sliced once and reused, and that a
// 1-D right operand becomes a column.
// CHECK-LABEL: func.func @broadcast_matmul
func.func @broadcast_matmul(%a: tensor<3x4xf32>, %b: tensor<2x4x5xf32>, %v: tensor<4xf32>) -> (tensor<2x3x5xf32>, tensor<3xf32>) {
  // CHECK-COUNT-2: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  // CHECK: hgraph.reshape %{{.*}} : tensor<4xf32> -> tensor<4x1xf32>
  // CHECK: hgraph.matmul %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<4x1xf32>) -> tensor<3x1xf32>
  // CHECK: hgraph.reshape %{{.*}} : tensor<3x1xf32> -> tensor<3xf32>
  %0 = hgraph.matmul %a, %b : (tensor<3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = hgraph.matmul %a, %v : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  return %0, %1 : tensor<2x3x5xf32>, tensor<3xf32>
}

// -----

// Tests that a reduction over outer axes moves them innermost, merges them
// and reduces the one innermost axis.
// CHECK-LABEL: func.func @reduce_outer_axes
func.func @reduce_outer_axes(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  // CHECK: %[[T:.*]] = hgraph.transpose %{{.*}} {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  // CHECK: %[[R:.*]] = hgraph.reshape %[[T]] : tensor<3x2x4xf32> -> tensor<3x8xf32>
  // CHECK: %[[M:.*]] = hgraph.reduce mean %[[R]] {axes = array<i64: 1>, keepdims = true} : tensor<3x8xf32> -> tensor<3x1xf32>
  // CHECK: hgraph.reshape %[[M]] : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %0 = hgraph.reduce mean %x {axes = array<i64: 0, 2>, keepdims = true} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// Tests that max and min over booleans (any, all) widen to i32, reduce and
// narrow back; a reduction over f32 stays as it is.
// CHECK-LABEL: func.func @reduce_booleans
func.func @reduce_booleans(%x: tensor<4x3xi1>) -> (tensor<4xi1>, tensor<4x1xi1>) {
  // CHECK: %[[W:.*]] = hgraph.cast %arg0 : tensor<4x3xi1> -> tensor<4x3xi32>
  // CHECK: %[[R:.*]] = hgraph.reduce max %[[W]] {axes = array<i64: 1>, keepdims = false} : tensor<4x3xi32> -> tensor<4xi32>
  // CHECK: hgraph.cast %[[R]] : tensor<4xi32> -> tensor<4xi1>
  // CHECK: hgraph.reduce min %{{.*}} {axes = array<i64: 1>, keepdims = true} : tensor<4x3xi32> -> tensor<4x1xi32>
  // CHECK-NOT: hgraph.reduce {{.*}}xi1
  %0 = hgraph.reduce max %x {axes = array<i64: 1>, keepdims = false} : tensor<4x3xi1> -> tensor<4xi1>
  %1 = hgraph.reduce min %x {axes = array<i64: 1>, keepdims = true} : tensor<4x3xi1> -> tensor<4x1xi1>
  return %0, %1 : tensor<4xi1>, tensor<4x1xi1>
}

// -----

// Tests that L2 and log-sum-exp become a sum with their elementwise steps,
// and that a product multiplies halves (no reduce prod is left).
// CHECK-LABEL: func.func @reduce_kinds
func.func @reduce_kinds(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3x1xf32>, tensor<3xf32>) {
  // CHECK: %[[SQ:.*]] = hgraph.mul %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  // CHECK: %[[S:.*]] = hgraph.reduce sum %[[SQ]] {axes = array<i64: 1>, keepdims = false} : tensor<3x4xf32> -> tensor<3xf32>
  // CHECK: hgraph.sqrt %[[S]]
  // CHECK: %[[E:.*]] = hgraph.exp %{{.*}} : tensor<3x4xf32>
  // CHECK: %[[S2:.*]] = hgraph.reduce sum %[[E]] {axes = array<i64: 1>, keepdims = true}
  // CHECK: hgraph.log %[[S2]]
  // CHECK-NOT: hgraph.reduce prod
  // CHECK: hgraph.mul
  // CHECK-NOT: hgraph.reduce prod
  %0 = hgraph.reduce l2 %x {axes = array<i64: 1>, keepdims = false} : tensor<3x4xf32> -> tensor<3xf32>
  %1 = hgraph.reduce log_sum_exp %x {axes = array<i64: 1>, keepdims = true} : tensor<3x4xf32> -> tensor<3x1xf32>
  %2 = hgraph.reduce prod %x {axes = array<i64: 1>, keepdims = false} : tensor<3x4xf32> -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3x1xf32>, tensor<3xf32>
}

// -----

// Tests that elu selects between x and alpha * (exp(x) - 1).
// CHECK-LABEL: func.func @pointwise_elu
func.func @pointwise_elu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK-DAG: %[[ZERO:.*]] = hgraph.constant dense<0.000000e+00> : tensor<f32>
  // CHECK-DAG: %[[ONE:.*]] = hgraph.constant dense<1.000000e+00> : tensor<f32>
  // CHECK-DAG: %[[ALPHA:.*]] = hgraph.constant dense<5.000000e-01> : tensor<f32>
  // CHECK: %[[NEG:.*]] = hgraph.less %arg0, %[[ZERO]] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  // CHECK: %[[EXP:.*]] = hgraph.exp %arg0
  // CHECK: %[[EM1:.*]] = hgraph.sub %[[EXP]], %[[ONE]]
  // CHECK: %[[SCALED:.*]] = hgraph.mul %[[ALPHA]], %[[EM1]]
  // CHECK: %[[R:.*]] = hgraph.where %[[NEG]], %[[SCALED]], %arg0
  // CHECK: return %[[R]]
  %0 = hgraph.pointwise elu %x {alpha = 0.5 : f32} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that softplus takes the form that neither overflows nor loses small
// values: max(x, 0) + log(1 + exp(-|x|)).
// CHECK-LABEL: func.func @pointwise_softplus
func.func @pointwise_softplus(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[ABS:.*]] = hgraph.abs %arg0
  // CHECK: %[[NEG:.*]] = hgraph.neg %[[ABS]]
  // CHECK: %[[EXP:.*]] = hgraph.exp %[[NEG]]
  // CHECK: %[[ONEP:.*]] = hgraph.add %{{.*}}, %[[EXP]]
  // CHECK: %[[LOG:.*]] = hgraph.log %[[ONEP]]
  // CHECK: %[[POS:.*]] = hgraph.max %arg0, %{{.*}}
  // CHECK: %[[R:.*]] = hgraph.add %[[POS]], %[[LOG]]
  // CHECK: return %[[R]]
  %0 = hgraph.pointwise softplus %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that atan reduces its argument twice (1/|x| above 1, (t-1)/(t+1)
// above tan(pi/8)) before the polynomial, and restores the sign.
// CHECK-LABEL: func.func @pointwise_atan
func.func @pointwise_atan(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[ABS:.*]] = hgraph.abs %arg0
  // CHECK: %[[BIG:.*]] = hgraph.greater %[[ABS]]
  // CHECK: %[[INV:.*]] = hgraph.div %{{.*}}, %[[ABS]]
  // CHECK: %[[T:.*]] = hgraph.where %[[BIG]], %[[INV]], %[[ABS]]
  // CHECK: %[[MID:.*]] = hgraph.greater %[[T]], %{{.*}}
  // CHECK: hgraph.where %[[MID]]
  // CHECK-COUNT-4: hgraph.mul
  // CHECK: hgraph.where %[[MID]]
  // CHECK: hgraph.where %[[BIG]]
  // CHECK: %[[SIGN:.*]] = hgraph.less %arg0
  // CHECK: hgraph.neg
  // CHECK: %[[R:.*]] = hgraph.where %[[SIGN]]
  // CHECK-NOT: hgraph.pointwise
  // CHECK: return %[[R]]
  %0 = hgraph.pointwise atan %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that sign works on integers with integer constants.
// CHECK-LABEL: func.func @pointwise_sign_int
func.func @pointwise_sign_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK-DAG: hgraph.constant dense<1> : tensor<i32>
  // CHECK-DAG: hgraph.constant dense<-1> : tensor<i32>
  // CHECK: %[[NEG:.*]] = hgraph.less %arg0
  // CHECK: %[[INNER:.*]] = hgraph.where %[[NEG]]
  // CHECK: %[[POS:.*]] = hgraph.greater %arg0
  // CHECK: %[[R:.*]] = hgraph.where %[[POS]], %{{.*}}, %[[INNER]]
  // CHECK: return %[[R]]
  %0 = hgraph.pointwise sign %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Tests that a gather by run-time indices along another axis than the
// first becomes a one-hot selection: the indices (negative ones wrapped)
// compared with the positions 0..4, the table with the gathered axis last
// (here already), a where and a sum over the positions.
// CHECK-LABEL: func.func @gather_dynamic
func.func @gather_dynamic(%x: tensor<3x5xf32>, %i: tensor<2xi64>) -> tensor<3x2xf32> {
  // CHECK-DAG: %[[ZERO:.*]] = hgraph.constant dense<0.000000e+00> : tensor<f32>
  // CHECK-DAG: %[[IOTA:.*]] = hgraph.constant dense<[0, 1, 2, 3, 4]> : tensor<5xi64>
  // CHECK-DAG: %[[N:.*]] = hgraph.constant dense<5> : tensor<i64>
  // CHECK: %[[TABLE:.*]] = hgraph.reshape %arg0 : tensor<3x5xf32> -> tensor<3x1x5xf32>
  // CHECK: %[[NEG:.*]] = hgraph.less %arg1
  // CHECK: %[[UP:.*]] = hgraph.add %arg1, %[[N]]
  // CHECK: %[[IDX:.*]] = hgraph.where %[[NEG]], %[[UP]], %arg1
  // CHECK: %[[COL:.*]] = hgraph.reshape %[[IDX]] : tensor<2xi64> -> tensor<1x2x1xi64>
  // CHECK: %[[HOT:.*]] = hgraph.equal %[[COL]], %[[IOTA]] : (tensor<1x2x1xi64>, tensor<5xi64>) -> tensor<1x2x5xi1>
  // CHECK: %[[SEL:.*]] = hgraph.where %[[HOT]], %[[TABLE]], %[[ZERO]] : (tensor<1x2x5xi1>, tensor<3x1x5xf32>, tensor<f32>) -> tensor<3x2x5xf32>
  // CHECK: %[[R:.*]] = hgraph.reduce sum %[[SEL]] {axes = array<i64: 2>, keepdims = false} : tensor<3x2x5xf32> -> tensor<3x2xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.gather %x, %i {axis = 1 : i64} : (tensor<3x5xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Tests that a lookup along axis 0 of a table computed at run time becomes
// gather_rows, as a constant table's does: the chip reads the rows by
// index from the buffer the program filled.
// CHECK-LABEL: func.func @gather_rows_computed
func.func @gather_rows_computed(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  // CHECK: %[[Y:.*]] = hgraph.neg %arg0
  // CHECK: %[[IDX:.*]] = hgraph.where
  // CHECK: %[[R:.*]] = hgraph.gather_rows %[[Y]], %[[IDX]] : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  // CHECK: return %[[R]]
  %y = hgraph.neg %x : tensor<5x3xf32>
  %0 = hgraph.gather %y, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that a lookup in a constant table along axis 0 (an embedding)
// becomes gather_rows of the indices with negative ones counted from the
// end: the chip reads the rows by index.
// CHECK-LABEL: func.func @gather_embedding
func.func @gather_embedding(%i: tensor<2x3xi64>) -> tensor<2x3x2x2xf32> {
  // CHECK-DAG: %[[T:.*]] = hgraph.constant dense<{{\[\[\[}}1.000000e+00, 2.000000e+00], {{.*}}> : tensor<5x2x2xf32>
  // CHECK-DAG: %[[N:.*]] = hgraph.constant dense<5> : tensor<i64>
  // CHECK: %[[NEG:.*]] = hgraph.less %arg0
  // CHECK: %[[UP:.*]] = hgraph.add %arg0, %[[N]]
  // CHECK: %[[IDX:.*]] = hgraph.where %[[NEG]], %[[UP]], %arg0
  // CHECK: %[[R:.*]] = hgraph.gather_rows %[[T]], %[[IDX]] : (tensor<5x2x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2x2xf32>
  // CHECK: return %[[R]]
  %t = hgraph.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]], [[9.0, 10.0], [11.0, 12.0]], [[13.0, 14.0], [15.0, 16.0]], [[17.0, 18.0], [19.0, 20.0]]]> : tensor<5x2x2xf32>
  %0 = hgraph.gather %t, %i {axis = 0 : i64} : (tensor<5x2x2xf32>, tensor<2x3xi64>) -> tensor<2x3x2x2xf32>
  return %0 : tensor<2x3x2x2xf32>
}

// -----

// Tests that a table of any element type is read by index, infinities
// included (nothing is multiplied).
// CHECK-LABEL: func.func @gather_table_not_finite
func.func @gather_table_not_finite(%i: tensor<2xi32>) -> tensor<2x2xf16> {
  // CHECK-NOT: hgraph.reduce
  // CHECK: hgraph.gather_rows %{{.*}}, %{{.*}} : (tensor<3x2xf16>, tensor<2xi32>) -> tensor<2x2xf16>
  %t = hgraph.constant dense<[[1.0, 0x7C00], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf16>
  %0 = hgraph.gather %t, %i {axis = 0 : i64} : (tensor<3x2xf16>, tensor<2xi32>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

// Tests that gather_elements by run-time indices cuts the input to the
// indices' extent and selects along the axis.
// CHECK-LABEL: func.func @gather_elements_dynamic
func.func @gather_elements_dynamic(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>) -> tensor<2x4xf32> {
  // CHECK: %[[CUT:.*]] = hgraph.slice %arg0 {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<3x4xf32> -> tensor<2x4xf32>
  // CHECK: %[[TABLE:.*]] = hgraph.reshape %[[CUT]] : tensor<2x4xf32> -> tensor<2x1x4xf32>
  // CHECK: %[[HOT:.*]] = hgraph.equal %{{.*}}, %{{.*}} : (tensor<2x4x1xi64>, tensor<4xi64>) -> tensor<2x4x4xi1>
  // CHECK: %[[SEL:.*]] = hgraph.where %[[HOT]], %[[TABLE]], %{{.*}} : (tensor<2x4x4xi1>, tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  // CHECK: hgraph.reduce sum %[[SEL]] {axes = array<i64: 2>, keepdims = false} : tensor<2x4x4xf32> -> tensor<2x4xf32>
  %0 = hgraph.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that a gather by constant indices is left for the switch units.
// CHECK-LABEL: func.func @gather_constant
func.func @gather_constant(%x: tensor<5x3xf32>) -> tensor<2x3xf32> {
  // CHECK: hgraph.gather %arg0
  %i = hgraph.constant dense<[4, 0]> : tensor<2xi64>
  %0 = hgraph.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that log_softmax is (x - max) - log(sum(exp(x - max))) along its
// axis (the reductions then move the axis innermost).
// CHECK-LABEL: func.func @log_softmax
func.func @log_softmax(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: hgraph.reduce max
  // CHECK: %[[MAX:.*]] = hgraph.reshape %{{.*}} : tensor<2x4xf32> -> tensor<2x1x4xf32>
  // CHECK: %[[SHIFTED:.*]] = hgraph.sub %arg0, %[[MAX]]
  // CHECK: %[[EXP:.*]] = hgraph.exp %[[SHIFTED]]
  // CHECK: hgraph.reduce sum
  // CHECK: %[[SUM:.*]] = hgraph.reshape %{{.*}} : tensor<2x4xf32> -> tensor<2x1x4xf32>
  // CHECK: %[[LOG:.*]] = hgraph.log %[[SUM]]
  // CHECK: %[[R:.*]] = hgraph.sub %[[SHIFTED]], %[[LOG]]
  // CHECK: return %[[R]]
  %0 = hgraph.log_softmax %x {axis = 1 : i64} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Tests that softmax along another than the last axis runs along the last
// between two transposes swapping the axes.
// CHECK-LABEL: func.func @softmax_axis0
func.func @softmax_axis0(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK: %[[T:.*]] = hgraph.transpose %arg0 {perm = array<i64: 2, 1, 0>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  // CHECK: %[[S:.*]] = hgraph.softmax %[[T]] {axis = 2 : i64} : tensor<4x3x2xf32>
  // CHECK: %[[R:.*]] = hgraph.transpose %[[S]] {perm = array<i64: 2, 1, 0>} : tensor<4x3x2xf32> -> tensor<2x3x4xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.softmax %x {axis = 0 : i64} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Tests that trilu keeps the upper triangle from diagonal 1 by a where with
// a constant mask, broadcast over the batch dimension.
// CHECK-LABEL: func.func @trilu_upper
func.func @trilu_upper(%x: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  // CHECK-DAG: %[[MASK:.*]] = hgraph.constant dense<{{\[\[}}false, true, true], [false, false, true], [false, false, false]]> : tensor<3x3xi1>
  // CHECK-DAG: %[[ZERO:.*]] = hgraph.constant dense<0.000000e+00> : tensor<f32>
  // CHECK: %[[R:.*]] = hgraph.where %[[MASK]], %arg0, %[[ZERO]] : (tensor<3x3xi1>, tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.trilu %x {k = 1 : i64, upper = true} : tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// -----

// Tests that nearest resize along the last dimension is a product with a
// constant selection matrix (asymmetric coordinates, rounding down), the
// unchanged dimensions flattened into rows.
// CHECK-LABEL: func.func @resize_nearest
func.func @resize_nearest(%x: tensor<1x2x3xf32>) -> tensor<1x2x6xf32> {
  // CHECK: %[[W:.*]] = hgraph.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<3x6xf32>
  // CHECK: %[[ROWS:.*]] = hgraph.reshape %arg0 : tensor<1x2x3xf32> -> tensor<2x3xf32>
  // CHECK: %[[P:.*]] = hgraph.matmul %[[ROWS]], %[[W]] : (tensor<2x3xf32>, tensor<3x6xf32>) -> tensor<2x6xf32>
  // CHECK: %[[R:.*]] = hgraph.reshape %[[P]] : tensor<2x6xf32> -> tensor<1x2x6xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.resize %x {coordinate_transformation_mode = "asymmetric", cubic_coeff_a = -7.500000e-01 : f32, mode = "nearest", nearest_mode = "floor", scales = array<f64: 1.0, 1.0, 2.0>} : tensor<1x2x3xf32> -> tensor<1x2x6xf32>
  return %0 : tensor<1x2x6xf32>
}

// -----

// Tests that tf_crop_and_resize resamples the first dimension between two
// transposes and adds the extrapolation value where the crop leaves the
// input; the second dimension, cropped whole, is left alone.
// CHECK-LABEL: func.func @resize_crop
func.func @resize_crop(%x: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // CHECK-DAG: %[[BIAS:.*]] = hgraph.constant dense<[0.000000e+00, 0.000000e+00, 5.000000e+00]> : tensor<3xf32>
  // CHECK-DAG: %[[W:.*]] = hgraph.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 0.000000e+00]]> : tensor<2x3xf32>
  // CHECK: %[[T:.*]] = hgraph.transpose %arg0 {perm = array<i64: 1, 0>} : tensor<2x4xf32> -> tensor<4x2xf32>
  // CHECK: %[[P:.*]] = hgraph.matmul %[[T]], %[[W]]
  // CHECK: %[[E:.*]] = hgraph.add %[[P]], %[[BIAS]]
  // CHECK: %[[R:.*]] = hgraph.transpose %[[E]] {perm = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: return %[[R]]
  %0 = hgraph.resize %x {coordinate_transformation_mode = "tf_crop_and_resize", cubic_coeff_a = -7.500000e-01 : f32, mode = "linear", nearest_mode = "round_prefer_floor", scales = array<f64: 1.5, 1.0>, roi = array<f64: 0.0, 0.0, 2.0, 1.0>, extrapolation_value = 5.0 : f32} : tensor<2x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Tests that a reversed exclusive running sum flips the input, adds copies
// shifted by 1, 2 and 4 (zeros padded in front), shifts the result by one
// and flips it back.
// CHECK-LABEL: func.func @cumulative_sum
func.func @cumulative_sum(%x: tensor<2x5xi32>) -> tensor<2x5xi32> {
  // CHECK: %[[ZERO:.*]] = hgraph.constant dense<0> : tensor<i32>
  // CHECK: %[[FLIP:.*]] = hgraph.slice %arg0 {starts = array<i64: 0, 4>, steps = array<i64: 1, -1>} : tensor<2x5xi32> -> tensor<2x5xi32>
  // CHECK: hgraph.pad %{{.*}}, %[[ZERO]] {mode = "constant", pads = array<i64: 0, 1, 0, 0>}
  // CHECK: %[[S1:.*]] = hgraph.add %[[FLIP]]
  // CHECK: hgraph.pad %{{.*}}, %[[ZERO]] {mode = "constant", pads = array<i64: 0, 2, 0, 0>}
  // CHECK: %[[S2:.*]] = hgraph.add %[[S1]]
  // CHECK: hgraph.pad %{{.*}}, %[[ZERO]] {mode = "constant", pads = array<i64: 0, 4, 0, 0>}
  // CHECK: %[[S4:.*]] = hgraph.add %[[S2]]
  // CHECK: %[[HEAD:.*]] = hgraph.slice %[[S4]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<2x5xi32> -> tensor<2x4xi32>
  // CHECK: %[[EXCL:.*]] = hgraph.pad %[[HEAD]], %[[ZERO]] {mode = "constant", pads = array<i64: 0, 1, 0, 0>}
  // CHECK: %[[R:.*]] = hgraph.slice %[[EXCL]] {starts = array<i64: 0, 4>, steps = array<i64: 1, -1>}
  // CHECK: return %[[R]]
  %0 = hgraph.cumulative sum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x5xi32>
  return %0 : tensor<2x5xi32>
}

// -----

// Tests that a transposed convolution with stride 2 spreads the input out
// (a product with a constant 0/1 matrix that also pads by kernel - 1 on
// both sides), swaps the kernel's channel dimensions, flips it, and runs a
// plain stride-1 convolution.
// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x1x3xf32>, %w: tensor<1x2x3xf32>) -> tensor<1x2x7xf32> {
  // CHECK: %[[SPREAD:.*]] = hgraph.constant dense<{{\[\[}}0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x9xf32>
  // CHECK: %[[ROWS:.*]] = hgraph.reshape %arg0 : tensor<1x1x3xf32> -> tensor<1x3xf32>
  // CHECK: %[[P:.*]] = hgraph.matmul %[[ROWS]], %[[SPREAD]] : (tensor<1x3xf32>, tensor<3x9xf32>) -> tensor<1x9xf32>
  // CHECK: %[[X:.*]] = hgraph.reshape %[[P]] : tensor<1x9xf32> -> tensor<1x1x9xf32>
  // CHECK: %[[G:.*]] = hgraph.reshape %arg1 : tensor<1x2x3xf32> -> tensor<1x1x2x3xf32>
  // CHECK: %[[T:.*]] = hgraph.transpose %[[G]] {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x3xf32> -> tensor<1x2x1x3xf32>
  // CHECK: %[[F:.*]] = hgraph.reshape %[[T]] : tensor<1x2x1x3xf32> -> tensor<2x1x3xf32>
  // CHECK: %[[W:.*]] = hgraph.slice %[[F]] {starts = array<i64: 0, 0, 2>, steps = array<i64: 1, 1, -1>} : tensor<2x1x3xf32> -> tensor<2x1x3xf32>
  // CHECK: %[[R:.*]] = hgraph.conv %[[X]], %[[W]] {dilations = array<i64: 1>, group = 1 : i64, pads = array<i64: 0, 0>, strides = array<i64: 1>} : (tensor<1x1x9xf32>, tensor<2x1x3xf32>) -> tensor<1x2x7xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.conv_transpose %x, %w {dilations = array<i64: 1>, group = 1 : i64, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : (tensor<1x1x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x7xf32>
  return %0 : tensor<1x2x7xf32>
}

// -----

// Tests that a transposed convolution whose kernel equals its strides
// (each input element spreads into a 2x2 block of its own) with constant
// weights is left whole for hetc-convert-hgraph-to-htile, and that the
// same with weights computed at run time is decomposed.
// CHECK-LABEL: func.func @conv_transpose_blocks
func.func @conv_transpose_blocks(%x: tensor<1x2x3x3xf32>, %v: tensor<2x1x2x2xf32>) -> (tensor<1x1x6x6xf32>, tensor<1x1x6x6xf32>) {
  // CHECK: %[[W:.*]] = hgraph.constant dense<1.000000e+00> : tensor<2x1x2x2xf32>
  // CHECK: %[[B:.*]] = hgraph.conv_transpose %arg0, %[[W]]
  // CHECK-NOT: hgraph.conv_transpose
  // CHECK: %[[C:.*]] = hgraph.conv
  // CHECK: return %[[B]], %[[C]]
  %w = hgraph.constant dense<1.0> : tensor<2x1x2x2xf32>
  %0 = hgraph.conv_transpose %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x1x6x6xf32>
  %1 = hgraph.conv_transpose %x, %v {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x1x2x2xf32>) -> tensor<1x1x6x6xf32>
  return %0, %1 : tensor<1x1x6x6xf32>, tensor<1x1x6x6xf32>
}

// -----

// Tests that batch_norm is scale * (x - mean) / sqrt(var + eps) + bias with
// the per-channel operands shaped [C, 1, 1].
// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%x: tensor<1x3x2x2xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<1x3x2x2xf32> {
  // CHECK-DAG: %[[EPS:.*]] = hgraph.constant dense<9.99999974E-6> : tensor<f32>
  // CHECK-DAG: %[[M:.*]] = hgraph.reshape %arg3 : tensor<3xf32> -> tensor<3x1x1xf32>
  // CHECK-DAG: %[[V:.*]] = hgraph.reshape %arg4 : tensor<3xf32> -> tensor<3x1x1xf32>
  // CHECK-DAG: %[[S:.*]] = hgraph.reshape %arg1 : tensor<3xf32> -> tensor<3x1x1xf32>
  // CHECK-DAG: %[[B:.*]] = hgraph.reshape %arg2 : tensor<3xf32> -> tensor<3x1x1xf32>
  // CHECK: %[[C:.*]] = hgraph.sub %arg0, %[[M]]
  // CHECK: %[[SC:.*]] = hgraph.mul %[[S]], %[[C]]
  // CHECK: %[[VE:.*]] = hgraph.add %[[V]], %[[EPS]]
  // CHECK: %[[D:.*]] = hgraph.sqrt %[[VE]]
  // CHECK: %[[N:.*]] = hgraph.div %[[SC]], %[[D]]
  // CHECK: %[[R:.*]] = hgraph.add %[[N]], %[[B]]
  // CHECK: return %[[R]]
  %0 = hgraph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// -----

// Tests that a product over 3 elements pads the row with a 1 to 4, then
// multiplies its halves twice.
// CHECK-LABEL: func.func @reduce_prod
func.func @reduce_prod(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // CHECK: %[[ONE:.*]] = hgraph.constant dense<1.000000e+00> : tensor<f32>
  // CHECK: %[[P:.*]] = hgraph.pad %arg0, %[[ONE]] {mode = "constant", pads = array<i64: 0, 0, 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x4xf32>
  // CHECK: %[[A:.*]] = hgraph.slice %[[P]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<2x4xf32> -> tensor<2x2xf32>
  // CHECK: %[[B:.*]] = hgraph.slice %[[P]] {starts = array<i64: 0, 2>, steps = array<i64: 1, 1>} : tensor<2x4xf32> -> tensor<2x2xf32>
  // CHECK: %[[AB:.*]] = hgraph.mul %[[A]], %[[B]]
  // CHECK: %[[C:.*]] = hgraph.slice %[[AB]] {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<2x2xf32> -> tensor<2x1xf32>
  // CHECK: %[[D:.*]] = hgraph.slice %[[AB]] {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : tensor<2x2xf32> -> tensor<2x1xf32>
  // CHECK: %[[CD:.*]] = hgraph.mul %[[C]], %[[D]]
  // CHECK: %[[R:.*]] = hgraph.reshape %[[CD]] : tensor<2x1xf32> -> tensor<2xf32>
  // CHECK: return %[[R]]
  %0 = hgraph.reduce prod %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that a concatenation of negated tensors (a rotary embedding's
// rotate_half) concatenates the tensors themselves and multiplies by a
// constant of signs along the axis, and that the negation, still read
// elsewhere, stays.
// CHECK-LABEL: func.func @negated_concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x2xf32>)
// CHECK-DAG: %[[SIGNS:.*]] = hgraph.constant dense<{{\[}}[-1.000000e+00, -1.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<1x5xf32>
// CHECK-DAG: %[[NEG:.*]] = hgraph.neg %[[B]]
// CHECK-DAG: %[[JOINED:.*]] = hgraph.concat %[[B]], %[[A]] {axis = 1 : i64}
// CHECK: %[[R:.*]] = hgraph.mul %[[JOINED]], %[[SIGNS]]
// CHECK: return %[[R]], %[[NEG]]
func.func @negated_concat(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> (tensor<2x5xf32>, tensor<2x2xf32>) {
  %n = hgraph.neg %b : tensor<2x2xf32>
  %c = hgraph.concat %n, %a {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return %c, %n : tensor<2x5xf32>, tensor<2x2xf32>
}

// -----

// Tests that a concatenation of negated integers stays as it is.
// CHECK-LABEL: func.func @negated_integer_concat
// CHECK: hgraph.neg
// CHECK-NEXT: hgraph.concat
// CHECK-NOT: hgraph.mul
func.func @negated_integer_concat(%a: tensor<2xi32>) -> tensor<4xi32> {
  %n = hgraph.neg %a : tensor<2xi32>
  %c = hgraph.concat %n, %a {axis = 0 : i64} : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
  return %c : tensor<4xi32>
}
