func.func @f() {
  %x = htile.alloc : memref<1x2x8xf32>
  %t = htile.alloc : memref<2x1xf32>
  htile.plan_depthwise_conv ins(%x, [%t]) outs(%x) {dilations = array<index: 1>, input_shape = array<i64: 1, 2, 8>, kernel = array<i64: 1>, pads = array<i64: 0, 0>, strides = array<i64: 1>} : memref<1x2x8xf32>, [memref<2x1xf32>] -> memref<1x2x8xf32>
  return
}
