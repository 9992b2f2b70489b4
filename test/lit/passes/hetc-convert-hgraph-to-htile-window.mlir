// RUN: hetc-opt %s --split-input-file --hetc-set-chip=file=%chips/test-chip.chip --hetc-convert-hgraph-to-htile | FileCheck %s

// Tests that a padded max pool of few output positions (one per feature
// map here) gathers each window into a row, with -inf (an extra
// one-element input) where the window leaves the input, and reduces the
// rows: the results, [N, C, 1], hold the output's elements in order.
// CHECK-LABEL: func.func @max_pool
func.func @max_pool(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x1x1xf32> {
  // CHECK: %[[X:.*]] = htile.input "input0"
  // CHECK: %[[NEG:.*]] = htile.constant dense<0xFF800000> : tensor<1xf32> : memref<1xf32>
  // CHECK: %[[W:.*]] = htile.alloc : memref<1x2x1x4xf32>
  // CHECK: htile.gather ins(%[[X]], %[[NEG]]) outs(%[[W]]) indices [8, 8, 8, 0, 8, 8, 8, 4]
  // CHECK: %[[R:.*]] = htile.alloc : memref<1x2x1x1xf32>
  // CHECK: htile.reduce max ins(%[[W]]) outs(%[[R]])
  // CHECK-NOT: htile.gather
  // CHECK: htile.output "output0", %[[R]]
  %0 = hgraph.max_pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x2x2xf32> -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}

// -----

// Tests that a 2-D pool whose window rows would take more vectors than
// three result buffers (64 windows of 4 elements, each a vector, against
// one feature map of 64 positions a row) is reduced separably: per kernel
// column, the input columns it meets at every output column (-inf, the
// one-element constant, where the window leaves the input; the second
// column is the input in order), combined by a maximum; per kernel row,
// the rows of that it meets (the second row as it lies), combined again.
// Only the output is regrouped into [N, C, H, W].
// CHECK-LABEL: func.func @max_pool_separable
func.func @max_pool_separable(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // CHECK: %[[X:.*]] = htile.input "input0"
  // CHECK: %[[NEG:.*]] = htile.constant dense<0xFF800000>
  // CHECK: %[[L:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.gather ins(%[[X]], %[[NEG]]) outs(%[[L]]) indices [64, 0, 1, 2, 3, 4, 5, 6, 64, 8,
  // CHECK: %[[R:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.gather ins(%[[X]]) outs(%[[R]]) indices [0, 1, 2, 3,
  // CHECK: %[[COLS:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.binary max ins(%[[L]], %[[R]]) outs(%[[COLS]])
  // CHECK: %[[UP:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.gather ins(%[[COLS]], %[[NEG]]) outs(%[[UP]]) indices [64, 64, 64, 64, 64, 64, 64, 64, 0, 1,
  // CHECK: %[[LAST:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.binary max ins(%[[UP]], %[[COLS]]) outs(%[[LAST]])
  // CHECK-NOT: htile.reduce
  // CHECK: %[[OUT:.*]] = htile.alloc : memref<1x1x8x8xf32>
  // CHECK: htile.gather ins(%[[LAST]]) outs(%[[OUT]])
  // CHECK: htile.output "{{.*}}", %[[OUT]]
  %0 = hgraph.max_pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

// Tests that a 1-D pool whose window rows would take more vectors than
// three result buffers is computed per kernel element: each element's
// inputs at every output position are gathered as [N, C, positions] (-inf
// where the window leaves the input) and combined with a running maximum.
// CHECK-LABEL: func.func @max_pool_by_kernel_element
func.func @max_pool_by_kernel_element(%x: tensor<1x1x64xf32>) -> tensor<1x1x64xf32> {
  // CHECK: %[[X:.*]] = htile.input "input0"
  // CHECK: %[[NEG:.*]] = htile.constant dense<0xFF800000>
  // CHECK: %[[T0:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.gather ins(%[[X]], %[[NEG]]) outs(%[[T0]]) indices [64, 0, 1, 2,
  // CHECK: %[[T1:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.gather ins(%[[X]], %[[NEG]]) outs(%[[T1]]) indices [0, 1, 2,
  // CHECK: %[[M1:.*]] = htile.alloc : memref<1x1x64xf32>
  // CHECK: htile.binary max ins(%[[T0]], %[[T1]]) outs(%[[M1]])
  // CHECK-NOT: htile.reduce
  // CHECK: htile.output
  %0 = hgraph.max_pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 1, 0>, strides = array<i64: 1>} : tensor<1x1x64xf32> -> tensor<1x1x64xf32>
  return %0 : tensor<1x1x64xf32>
}

// -----

// Tests that an average pool without counting the padding sums the
// zero-padded inputs separably (per kernel column, then per kernel row)
// and divides by each window's count of input elements, a row over the
// feature map's positions.
// CHECK-LABEL: func.func @average_pool
func.func @average_pool(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [-1, 0, -1, 2] : (memref<1x1x2x2xf32>) -> memref<1x1x4xf32>
  // CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [0, 1, 2, 3] : (memref<1x1x2x2xf32>) -> memref<1x1x4xf32>
  // CHECK: htile.binary add
  // CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [-1, -1, 0, 1] : (memref<1x1x4xf32>) -> memref<1x1x4xf32>
  // CHECK: htile.binary add
  // CHECK: %[[N:.*]] = htile.constant dense<[1.000000e+00, 2.000000e+00, 2.000000e+00, 4.000000e+00]> : tensor<4xf32> : memref<4xf32>
  // CHECK: htile.binary div ins(%{{.*}}, %[[N]])
  %0 = hgraph.average_pool %x {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// Tests that a convolution gathers its input windows as columns
// ([C * K, positions]) and multiplies the weight rows by them, so the
// result is already in NCHW order; the bias is added per channel.
// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x1x3x3xf32>, %w: tensor<2x1x2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: %[[W2:.*]] = htile.alloc : memref<2x4xf32>
  // CHECK: htile.gather ins(%{{.*}}) outs(%[[W2]]) indices [0, 1, 2, 3, 4, 5, 6, 7] : (memref<2x1x2x2xf32>) -> memref<2x4xf32>
  // CHECK: %[[COLS:.*]] = htile.alloc : memref<4x4xf32>
  // CHECK: htile.gather ins(%{{.*}}) outs(%[[COLS]]) indices [0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8] : (memref<1x1x3x3xf32>) -> memref<4x4xf32>
  // CHECK: %[[P:.*]] = htile.alloc : memref<2x4xf32>
  // CHECK: htile.matmul ins(%[[W2]], %[[COLS]]) outs(%[[P]])
  // The kernel plan's form after the product: the map, the weight rows,
  // the product's buffer.
  // CHECK: htile.plan_conv ins(%{{.*}}, [%[[W2]]]) outs(%[[P]]) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 1, 3, 3>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : memref<1x1x3x3xf32>, [memref<2x4xf32>] -> memref<2x4xf32>
  // CHECK: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) : memref<1x2x4xf32>, memref<2x1xf32>, memref<1x2x4xf32>
  // CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [0, 1, 2, 3, 4, 5, 6, 7] : (memref<1x2x4xf32>) -> memref<1x2x2x2xf32>
  %0 = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Tests that a depthwise convolution (one channel per group, constant
// weights) whose scale columns take no more SRAM than one of its buffers
// (one kernel element x 2 channels: 2 vectors; a [1, 2, 9] buffer: 2) is a
// sum over kernel elements of the input elements each meets at every
// output position (-1: padding), gathered as [N, C, positions] and scaled
// by a [C, 1] column of that kernel element's weights: no matrix unit.
// CHECK-LABEL: func.func @depthwise
func.func @depthwise(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  // CHECK: %[[T0:.*]] = htile.alloc : memref<1x2x9xf32>
  // CHECK: htile.gather ins(%{{.*}}) outs(%[[T0]]) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
  // CHECK: %[[W:.*]] = htile.constant dense<{{\[\[}}5.000000e-01], [2.000000e+00]]> : tensor<2x1xf32>
  // CHECK: %[[S:.*]] = htile.alloc : memref<1x2x9xf32>
  // CHECK: htile.binary mul ins(%[[T0]], %[[W]]) outs(%[[S]])
  // CHECK-NOT: htile.matmul
  // The kernel plan's form after the sums: the input, the column, the
  // sums' buffer.
  // CHECK: htile.plan_depthwise_conv ins(%{{.*}}, [%[[W]]]) outs(%[[S]]) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 2, 3, 3>, kernel = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : memref<1x2x3x3xf32>, [memref<2x1xf32>] -> memref<1x2x9xf32>
  // CHECK: htile.gather ins(%[[S]]) outs(%{{.*}}) indices [0, 1, 2, {{.*}}] : (memref<1x2x9xf32>) -> memref<1x2x3x3xf32>
  %w = hgraph.constant dense<[[[[0.5]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Tests that a stride-1 3x3 depthwise convolution is taken separably: a
// move per kernel column takes the input's columns it meets at every
// output column (-1 past the map's edges; the centre one is the input in
// its [N, C, positions] rows), each kernel row scales and sums those
// three, and a move per kernel row takes the rows it meets (the centre
// row's sums are used as they lie): 5 moves where taking each kernel
// element would make 9.
// CHECK-LABEL: func.func @depthwise_separable
func.func @depthwise_separable(%x: tensor<1x2x12x12xf32>) -> tensor<1x2x12x12xf32> {
  // CHECK: %[[X:.*]] = htile.input "input0"
  // CHECK: %[[L:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK: htile.gather ins(%[[X]]) outs(%[[L]]) indices [-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1, 12, 13,
  // CHECK: %[[M:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK: htile.gather ins(%[[X]]) outs(%[[M]]) indices [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
  // CHECK: %[[R:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK: htile.gather ins(%[[X]]) outs(%[[R]]) indices [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1, 13, 14,
  // CHECK-COUNT-3: htile.binary mul ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) : memref<1x2x144xf32>, memref<2x1xf32>, memref<1x2x144xf32>
  // CHECK: %[[TOP:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK-NEXT: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%[[TOP]])
  // CHECK: %[[UP:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK-NEXT: htile.gather ins(%[[TOP]]) outs(%[[UP]]) indices [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2,
  // CHECK-COUNT-3: htile.binary mul
  // CHECK: %[[MID:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK-NEXT: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%[[MID]])
  // CHECK-NEXT: %[[SUM:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK-NEXT: htile.binary add ins(%[[UP]], %[[MID]]) outs(%[[SUM]])
  // CHECK-COUNT-3: htile.binary mul
  // CHECK: %[[BOT:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK-NEXT: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%[[BOT]])
  // CHECK: %[[DOWN:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK-NEXT: htile.gather ins(%[[BOT]]) outs(%[[DOWN]]) indices [12, 13, 14,
  // CHECK: %[[OUT:.*]] = htile.alloc : memref<1x2x144xf32>
  // CHECK-NEXT: htile.binary add ins(%[[SUM]], %[[DOWN]]) outs(%[[OUT]])
  // The kernel plan runs all that as one kernel: the input, a column per
  // kernel element in kernel order, the last sums' buffer.
  // CHECK-NEXT: htile.plan_depthwise_conv ins(%[[X]], [%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}]) outs(%[[OUT]]) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 2, 12, 12>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
  // CHECK-NOT: htile.gather ins(%[[X]])
  // CHECK: htile.output
  %w = hgraph.constant dense<0.5> : tensor<2x1x3x3xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x12x12xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x12x12xf32>
  return %0 : tensor<1x2x12x12xf32>
}

// -----

// Tests that a stride-2 depthwise convolution is taken separably too: its
// column moves keep every input row ([N, C, 24 x 12]), and its row moves
// take every other row of the scaled sums into [N, C, 12 x 12].
// CHECK-LABEL: func.func @depthwise_stride_two
func.func @depthwise_stride_two(%x: tensor<1x2x24x24xf32>) -> tensor<1x2x12x12xf32> {
  // CHECK-COUNT-3: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [{{.*}}] : (memref<1x2x24x24xf32>) -> memref<1x2x288xf32>
  // CHECK: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [{{.*}}] : (memref<1x2x288xf32>) -> memref<1x2x144xf32>
  // CHECK-NOT: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [{{.*}}] : (memref<1x2x24x24xf32>)
  %w = hgraph.constant dense<0.5> : tensor<2x1x3x3xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x24x24xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x12x12xf32>
  return %0 : tensor<1x2x12x12xf32>
}

// -----

// Tests that a stride-3 depthwise convolution stays per kernel element:
// taken separably its column moves would keep every input row, three
// times the elements to scale. Nine moves of [N, C, positions].
// CHECK-LABEL: func.func @depthwise_stride_three
func.func @depthwise_stride_three(%x: tensor<1x2x36x36xf32>) -> tensor<1x2x12x12xf32> {
  // CHECK-COUNT-9: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [{{.*}}] : (memref<1x2x36x36xf32>) -> memref<1x2x144xf32>
  // CHECK-NOT: htile.gather ins(%{{.*}}) outs(%{{.*}}) indices [{{.*}}] : (memref<1x2x36x36xf32>)
  %w = hgraph.constant dense<0.5> : tensor<2x1x3x3xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 3, 3>} : (tensor<1x2x36x36xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x12x12xf32>
  return %0 : tensor<1x2x12x12xf32>
}

// -----

// Tests that a channels-last depthwise convolution is one kernel over the
// map's rows of channels ([H, W, C], a view of the input) with four copies
// of its constant weight, which the placer keeps apart, and its bias.
// CHECK-LABEL: func.func @depthwise_nhwc
func.func @depthwise_nhwc(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  // CHECK: %[[X:.*]] = htile.input "input0" : memref<1x4x4x8xf32>
  // CHECK: %[[V:.*]] = htile.view %[[X]] : memref<1x4x4x8xf32> to memref<4x4x8xf32>
  // CHECK: %[[W0:.*]] = htile.constant dense<5.000000e-01> : tensor<3x3x8xf32> : memref<3x3x8xf32>
  // CHECK: %[[W1:.*]] = htile.constant dense<5.000000e-01> : tensor<3x3x8xf32> : memref<3x3x8xf32>
  // CHECK: %[[W2:.*]] = htile.constant dense<5.000000e-01> : tensor<3x3x8xf32> : memref<3x3x8xf32>
  // CHECK: %[[W3:.*]] = htile.constant dense<5.000000e-01> : tensor<3x3x8xf32> : memref<3x3x8xf32>
  // CHECK: %[[B:.*]] = htile.constant dense<1.000000e+00> : tensor<8xf32> : memref<8xf32>
  // CHECK: %[[Y:.*]] = htile.alloc : memref<4x4x8xf32>
  // CHECK: htile.depthwise_conv ins(%[[V]], [%[[W0]], %[[W1]], %[[W2]], %[[W3]]], %[[B]]) outs(%[[Y]]) {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
  // CHECK: htile.output "output0", %{{.*}} : memref<1x4x4x8xf32>
  %w = hgraph.constant dense<0.5> : tensor<3x3x8xf32>
  %b = hgraph.constant dense<1.0> : tensor<8xf32>
  %0 = hgraph.depthwise_conv_nhwc %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<3x3x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// Tests that a depthwise convolution whose scale columns would outweigh
// its buffers and a thirty-second of the chip's SRAM (9 kernel elements x
// 32 channels: 288 vectors, against 32 and 256 on test-chip) takes the
// matrix path: one product per group of the weight row by the gathered
// windows.
// CHECK-LABEL: func.func @depthwise_matrix
func.func @depthwise_matrix(%x: tensor<1x32x3x3xf32>) -> tensor<1x32x3x3xf32> {
  // CHECK-NOT: htile.binary mul
  // CHECK-COUNT-32: htile.matmul
  %w = hgraph.constant dense<0.5> : tensor<32x1x3x3xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 32 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x32x3x3xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x3x3xf32>
  return %0 : tensor<1x32x3x3xf32>
}

// -----

// Tests that a convolution's result stays in its [N, C, positions] rows
// through the elementwise kernels after it (a per-channel scale, relu, a
// clip by a scalar, expanded to one row of the feature map) and into a
// pool, which gathers from those rows: only the output is regrouped into
// [N, C, H, W] rows.
// CHECK-LABEL: func.func @feature_map_rows
func.func @feature_map_rows(%x: tensor<1x1x3x3xf32>) -> tensor<1x2x2x2xf32> {
  // CHECK: %[[C:.*]] = htile.view %{{.*}} : memref<2x9xf32> to memref<1x2x9xf32>
  // CHECK: %[[S:.*]] = htile.view %{{.*}} : memref<1x2x1x1xf32> to memref<1x2x1xf32>
  // CHECK: %[[M:.*]] = htile.alloc : memref<1x2x9xf32>
  // CHECK: htile.binary mul ins(%[[C]], %[[S]]) outs(%[[M]])
  // CHECK: %[[R:.*]] = htile.alloc : memref<1x2x9xf32>
  // CHECK: htile.unary relu ins(%[[M]]) outs(%[[R]])
  // CHECK: %[[SIX:.*]] = htile.constant dense<6.000000e+00> : tensor<9xf32> : memref<9xf32>
  // CHECK: %[[K:.*]] = htile.alloc : memref<1x2x9xf32>
  // CHECK: htile.binary min ins(%[[R]], %[[SIX]]) outs(%[[K]])
  // CHECK: htile.gather ins(%[[K]]) outs(%{{.*}}) indices [0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16] : (memref<1x2x9xf32>) -> memref<1x2x6xf32>
  // CHECK-NOT: memref<1x2x3x3xf32>
  // CHECK: %[[OUT:.*]] = htile.alloc : memref<1x2x2x2xf32>
  // CHECK: htile.gather ins(%{{.*}}) outs(%[[OUT]]) indices [0, 1, 2, 3, 4, 5, 6, 7] : (memref<1x2x4xf32>) -> memref<1x2x2x2xf32>
  %w = hgraph.constant dense<[[[[1.0]]], [[[-1.0]]]]> : tensor<2x1x1x1xf32>
  %scale = hgraph.constant dense<[[[[2.0]], [[3.0]]]]> : tensor<1x2x1x1xf32>
  %six = hgraph.constant dense<6.0> : tensor<f32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %1 = hgraph.mul %0, %scale : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %2 = hgraph.relu %1 : tensor<1x2x3x3xf32>
  %3 = hgraph.min %2, %six : (tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %4 = hgraph.max_pool %3 {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x2x3x3xf32> -> tensor<1x2x2x2xf32>
  return %4 : tensor<1x2x2x2xf32>
}

// -----

// Tests that a constant bias rides in the product: each weight row gains
// its channel's bias as one more column and the windows one more row, of
// ones (index 4, past the input's elements, is the one-element constant),
// so no add follows; and that a grouped convolution with constant weights
// has each group's rows cut on the host, not gathered on the chip.
// CHECK-LABEL: func.func @conv_bias_in_product
func.func @conv_bias_in_product(%x: tensor<1x2x1x2xf32>) -> tensor<1x4x1x2xf32> {
  // CHECK: %[[X:.*]] = htile.input "input0" : memref<1x2x1x2xf32>
  // CHECK: %[[W0:.*]] = htile.constant dense<{{\[\[}}1.000000e+00, 1.000000e+01], [2.000000e+00, 2.000000e+01]]> : tensor<2x2xf32> : memref<2x2xf32>
  // CHECK: %[[W1:.*]] = htile.constant dense<{{\[\[}}3.000000e+00, 3.000000e+01], [4.000000e+00, 4.000000e+01]]> : tensor<2x2xf32> : memref<2x2xf32>
  // CHECK: %[[ONE:.*]] = htile.constant dense<1.000000e+00> : tensor<1xf32> : memref<1xf32>
  // CHECK: %[[C0:.*]] = htile.alloc : memref<2x2xf32>
  // CHECK: htile.gather ins(%[[X]], %[[ONE]]) outs(%[[C0]]) indices [0, 1, 4, 4]
  // CHECK: htile.matmul ins(%[[W0]], %[[C0]])
  // CHECK: %[[C1:.*]] = htile.alloc : memref<2x2xf32>
  // CHECK: htile.gather ins(%[[X]], %[[ONE]]) outs(%[[C1]]) indices [2, 3, 4, 4]
  // CHECK: htile.matmul ins(%[[W1]], %[[C1]])
  // CHECK-NOT: htile.binary
  // CHECK: htile.output
  %w = hgraph.constant dense<[[[[1.0]]], [[[2.0]]], [[[3.0]]], [[[4.0]]]]> : tensor<4x1x1x1xf32>
  %b = hgraph.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %0 = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x1x2xf32>, tensor<4x1x1x1xf32>, tensor<4xf32>) -> tensor<1x4x1x2xf32>
  return %0 : tensor<1x4x1x2xf32>
}

// -----

// Tests a convolution at f16 (--precision): the weight rows are cut at
// f16 and multiply the f16 input (a 1 x 1 convolution's windows are the
// input itself, viewed as [C, positions]) into f32 sums, and the f32 bias
// is added after the product, not carried in it at f16.
// CHECK-LABEL: func.func @conv_f16
// CHECK: %[[W:.*]] = htile.constant dense<{{\[}}[1.500000e+00], [-2.000000e+00]]> : tensor<2x1xf16> : memref<2x1xf16>
// CHECK: %[[C:.*]] = htile.view %{{.*}} : memref<1x1x1x2xf16> to memref<1x2xf16>
// CHECK-NOT: htile.gather
// CHECK: %[[P:.*]] = htile.alloc : memref<2x2xf32>
// CHECK: htile.matmul ins(%[[W]], %[[C]]) outs(%[[P]])
// CHECK: htile.binary add ins(%{{.*}}, %{{.*}}) outs(%{{.*}}) : memref<1x2x2xf32>, memref<2x1xf32>, memref<1x2x2xf32>
func.func @conv_f16(%x: tensor<1x1x1x2xf16>) -> tensor<1x2x1x2xf32> {
  %w = hgraph.constant dense<[[[[1.5]]], [[[-2.0]]]]> : tensor<2x1x1x1xf16>
  %b = hgraph.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %0 = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x1x2xf16>, tensor<2x1x1x1xf16>, tensor<2xf32>) -> tensor<1x2x1x2xf32>
  return %0 : tensor<1x2x1x2xf32>
}

// -----

// Tests that a 1 x 1 convolution of stride 1 without padding multiplies
// its input as it lies when it has no bias to carry in the product, and
// that with a constant bias the windows are a copy of the input and a row
// of ones, the bias riding in the product.
// CHECK-LABEL: func.func @pointwise_bias
// CHECK: %[[X:.*]] = htile.view %{{.*}} : memref<1x2x4xf32> to memref<2x4xf32>
// CHECK-NEXT: %[[P:.*]] = htile.alloc : memref<1x4xf32>
// CHECK-NEXT: htile.matmul ins(%{{.*}}, %[[X]]) outs(%[[P]])
// CHECK: %[[O:.*]] = htile.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK: %[[C:.*]] = htile.alloc : memref<2x4xf32>
// CHECK: htile.gather ins(%{{.*}}, %[[O]]) outs(%[[C]]) indices [0, 1, 2, 3, 4, 4, 4, 4]
// CHECK: htile.matmul ins(%{{.*}}, %[[C]])
// CHECK-NOT: htile.binary add
// CHECK: htile.output
func.func @pointwise_bias(%x: tensor<1x2x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %w0 = hgraph.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b0 = hgraph.constant dense<[0.5, 1.5]> : tensor<2xf32>
  %0 = hgraph.conv %x, %w0, %b0 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %w1 = hgraph.constant dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %1 = hgraph.conv %0, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x2x2xf32>
  %w2 = hgraph.constant dense<[[[[1.0]]], [[[2.0]]], [[[3.0]]]]> : tensor<3x1x1x1xf32>
  %b2 = hgraph.constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %2 = hgraph.conv %1, %w2, %b2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<3x1x1x1xf32>, tensor<3xf32>) -> tensor<1x3x2x2xf32>
  return %2 : tensor<1x3x2x2xf32>
}

// -----

// Tests that a transposed convolution whose kernel equals its strides is
// one product and one move: the weight as rows, one per output channel
// and block position ([M * 2 * 2, C], row (m, a, b) holding W[:, m, a, b]),
// times the input's maps ([C, H * W]; the program's input, in rows of W,
// is regrouped into them once), the bias added
// per row, and the block positions' maps interleaved into the output's map
// (output (y, x) from row (y % 2) * 2 + x % 2, position (y / 2) * 2 + x / 2).
// CHECK-LABEL: func.func @conv_transpose_blocks
func.func @conv_transpose_blocks(%x: tensor<1x2x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // CHECK: %[[X:.*]] = htile.input "input0" : memref<1x2x2x2xf32>
  // CHECK: %[[W:.*]] = htile.constant dense<{{\[\[}}0.000000e+00, 4.000000e+00], [1.000000e+00, 5.000000e+00], [2.000000e+00, 6.000000e+00], [3.000000e+00, 7.000000e+00]]> : tensor<4x2xf32> : memref<4x2xf32>
  // CHECK: %[[V:.*]] = htile.alloc : memref<2x4xf32>
  // CHECK: htile.gather ins(%[[X]]) outs(%[[V]]) indices [0, 1, 2, 3, 4, 5, 6, 7]
  // CHECK: %[[P:.*]] = htile.alloc : memref<4x4xf32>
  // CHECK: htile.matmul ins(%[[W]], %[[V]]) outs(%[[P]])
  // CHECK: %[[B:.*]] = htile.constant dense<5.000000e-01> : tensor<4x1xf32> : memref<4x1xf32>
  // CHECK: %[[S:.*]] = htile.alloc : memref<4x4xf32>
  // CHECK: htile.binary add ins(%[[P]], %[[B]]) outs(%[[S]])
  // CHECK: %[[O:.*]] = htile.alloc : memref<1x1x16xf32>
  // CHECK: htile.gather ins(%[[S]]) outs(%[[O]]) indices [0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15]
  // CHECK: htile.unary relu ins(%[[O]])
  %w = hgraph.constant dense<[[[[0.0, 1.0], [2.0, 3.0]]], [[[4.0, 5.0], [6.0, 7.0]]]]> : tensor<2x1x2x2xf32>
  %b = hgraph.constant dense<0.5> : tensor<1xf32>
  %0 = hgraph.conv_transpose %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, output_padding = array<i64: 0, 0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x2x2xf32>, tensor<2x1x2x2xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %1 = hgraph.relu %0 : tensor<1x1x4x4xf32>
  return %1 : tensor<1x1x4x4xf32>
}

// -----

// Tests the kernel plan's form of a convolution of two groups with a
// constant weight and bias: the bias rides in each group's weight rows
// (a last column), the products of the groups are joined by a move into
// the result, which the plan's convolution writes whole.
// CHECK-LABEL: func.func @conv_groups_plan
func.func @conv_groups_plan(%x: tensor<1x2x3x3xf32>) -> tensor<1x4x2x2xf32> {
  // CHECK: %[[W0:.*]] = htile.constant {{.*}} : memref<2x5xf32>
  // CHECK: %[[W1:.*]] = htile.constant {{.*}} : memref<2x5xf32>
  // CHECK: %[[Y:.*]] = htile.alloc : memref<1x4x4xf32>
  // CHECK: htile.gather ins(%{{.*}}, %{{.*}}) outs(%[[Y]])
  // CHECK-NEXT: htile.plan_conv ins(%{{.*}}, [%[[W0]], %[[W1]]]) outs(%[[Y]]) {dilations = array<i64: 1, 1>, input_shape = array<i64: 1, 2, 3, 3>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : memref<1x2x3x3xf32>, [memref<2x5xf32>, memref<2x5xf32>] -> memref<1x4x4xf32>
  // CHECK-NOT: htile.binary
  %w = hgraph.constant dense<0.25> : tensor<4x1x2x2xf32>
  %b = hgraph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<4x1x2x2xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// Tests that a 1x1 convolution of stride 1 without padding, whose input
// is its windows (nothing gathered; with a bias in the product, a copy
// with a row of ones), and a half-precision one, have no plan form: the
// plan runs their products as the chip does.
// CHECK-LABEL: func.func @conv_no_plan
// CHECK-NOT: htile.plan_conv
// CHECK: return
func.func @conv_no_plan(%x: tensor<1x2x3x3xf32>, %h: tensor<1x2x3x3xf16>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x2x2xf16>) {
  %w = hgraph.constant dense<0.25> : tensor<4x2x1x1xf32>
  %b = hgraph.constant dense<1.0> : tensor<4xf32>
  %0 = hgraph.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x3x3xf32>
  %1 = hgraph.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %wh = hgraph.constant dense<0.25> : tensor<4x2x2x2xf16>
  %2 = hgraph.conv %h, %wh {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf16>, tensor<4x2x2x2xf16>) -> tensor<1x4x2x2xf16>
  return %0, %1, %2 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<1x4x2x2xf16>
}
