// RUN: hetc-opt %s --hetc-hgraph-pipeline | FileCheck %s

// Tests that the hgraph pipeline computes identical work once: two cache
// updates that each normalise the same run-time position (ONNX's negative
// index wrap-around) share one normalisation.
// CHECK-LABEL: func.func @two_caches
// CHECK: hgraph.less
// CHECK-NOT: hgraph.less
// CHECK: %[[I:.*]] = hgraph.where
// CHECK-NOT: hgraph.less
// CHECK: hgraph.scatter_rows %{{.*}}, %[[I]], %{{.*}}
// CHECK-NOT: hgraph.less
// CHECK: hgraph.scatter_rows %{{.*}}, %[[I]], %{{.*}}
// CHECK: return
func.func @two_caches(%pos: tensor<1xi64>, %k: tensor<8x4xf32>, %v: tensor<8x4xf32>, %new: tensor<1x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %zero = hgraph.constant dense<0> : tensor<i64>
  %eight = hgraph.constant dense<8> : tensor<i64>
  %n0 = hgraph.less %pos, %zero : (tensor<1xi64>, tensor<i64>) -> tensor<1xi1>
  %w0 = hgraph.add %pos, %eight : (tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  %i0 = hgraph.where %n0, %w0, %pos : (tensor<1xi1>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %k1 = hgraph.scatter_rows %k, %i0, %new : (tensor<8x4xf32>, tensor<1xi64>, tensor<1x4xf32>) -> tensor<8x4xf32>
  %n1 = hgraph.less %pos, %zero : (tensor<1xi64>, tensor<i64>) -> tensor<1xi1>
  %w1 = hgraph.add %pos, %eight : (tensor<1xi64>, tensor<i64>) -> tensor<1xi64>
  %i1 = hgraph.where %n1, %w1, %pos : (tensor<1xi1>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %v1 = hgraph.scatter_rows %v, %i1, %new : (tensor<8x4xf32>, tensor<1xi64>, tensor<1x4xf32>) -> tensor<8x4xf32>
  return %k1, %v1 : tensor<8x4xf32>, tensor<8x4xf32>
}
