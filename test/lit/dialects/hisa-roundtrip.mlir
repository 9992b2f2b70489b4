// RUN: hetc-opt %s | hetc-opt | FileCheck %s

// Tests that every hisa op prints and parses back, scheduled or not.
// CHECK-LABEL: func.func @main
func.func @main() {
  // CHECK: hisa.input "x" at 0 : tensor<1x16xf32>
  hisa.input "x" at 0 : tensor<1x16xf32>
  // CHECK: hisa.output "y" at 1 : tensor<1x16xf32>
  hisa.output "y" at 1 : tensor<1x16xf32>
  // CHECK: hisa.constant at 2 dense<1.000000e+00> : tensor<16xf32>
  hisa.constant at 2 dense<1.0> : tensor<16xf32>
  // CHECK: %[[X:.*]] = hisa.read 0 at 3 on <east, 0>
  %0 = hisa.read 0 at 3 on <east, 0>
  // CHECK: %[[C:.*]] = hisa.read 2{{$}}
  %1 = hisa.read 2
  // CHECK: hisa.gather %[[X]] lane 3 table 2 stride 1 rows 1 at 5 on <east, 8>
  %g = hisa.gather %0 lane 3 table 2 stride 1 rows 1 at 5 on <east, 8>
  // CHECK: hisa.gather %[[X]] lane 0 table 2 stride 2 rows 4 as f16{{$}}
  %h = hisa.gather %0 lane 0 table 2 stride 2 rows 4 as f16
  // CHECK: hisa.gather %[[X]] lane 0 table 2 part 1 stride 2 rows 4 as f16{{$}}
  %h1 = hisa.gather %0 lane 0 table 2 part 1 stride 2 rows 4 as f16
  // CHECK: hisa.scatter %[[C]] by %[[X]] lane 2 table 2 stride 1 rows 1 at 9{{$}}
  hisa.scatter %1 by %0 lane 2 table 2 stride 1 rows 1 at 9
  // CHECK: hisa.scatter %[[C]], %[[C]] by %[[X]], %[[X]] lane 0 table 2 part 1 stride 2 rows 4 as f16{{$}}
  hisa.scatter %1, %1 by %0, %0 lane 0 table 2 part 1 stride 2 rows 4 as f16
  // CHECK: %[[Q:.*]] = hisa.read 6 part 3 as i8 at 4{{$}}
  %q = hisa.read 6 part 3 as i8 at 4
  // CHECK: hisa.write %[[Q]] to 7 part 2 as i8{{$}}
  hisa.write %q to 7 part 2 as i8
  // CHECK: hisa.vbinary add %[[X]], %[[C]] lanes 16 at 7 on <west, 4>
  %2 = hisa.vbinary add %0, %1 lanes 16 at 7 on <west, 4>
  // CHECK: hisa.vunary sigmoid
  %3 = hisa.vunary sigmoid %2 lanes 16
  // CHECK: hisa.vreduce max %{{.*}} lanes 10
  %4 = hisa.vreduce max %3 lanes 10
  // CHECK: hisa.load_weights %{{.*}} plane 1 row 3 at 9
  hisa.load_weights %4 plane 1 row 3 at 9
  %7 = hisa.read 2
  // CHECK: hisa.load_weights %{{.*}} plane 0 column 15
  hisa.load_weights %7 plane 0 column 15
  // A train: a read, a conversion and a weight load issued 8 times.
  // CHECK: %[[T:.*]] = hisa.read 64 part 1 as f16 repeat <8 every 1 step 2> at 3 on <west, 0>
  %t = hisa.read 64 part 1 as f16 repeat <8 every 1 step 2> at 3 on <west, 0>
  // CHECK: %[[TC:.*]] = hisa.vcast %[[T]] from f16 to f32 lanes 16 repeat <8 every 1>
  %tc = hisa.vcast %t from f16 to f32 lanes 16 repeat <8 every 1>
  // CHECK: hisa.load_weights %[[TC]] plane 2 row 1 repeat <8 every 1 step 2>
  hisa.load_weights %tc plane 2 row 1 repeat <8 every 1 step 2>
  // CHECK: %[[P:.*]] = hisa.read 80 parts 2 as f16 repeat <4 every 1 step 4>
  %p = hisa.read 80 parts 2 as f16 repeat <4 every 1 step 4>
  // CHECK: hisa.load_weights %[[P]] plane 3 row 8 parts 2 as f16 repeat <4 every 1 step 2>
  hisa.load_weights %p plane 3 row 8 parts 2 as f16 repeat <4 every 1 step 2>
  // CHECK: %[[Q:.*]] = hisa.read 81 part 1 parts 3 as i8
  %pq = hisa.read 81 part 1 parts 3 as i8
  // CHECK: hisa.load_weights %[[Q]] plane 0 row 4 parts 3 as i8
  hisa.load_weights %pq plane 0 row 4 parts 3 as i8
  // CHECK: hisa.load_weights %{{.*}} plane 2 row 5 buffered parts 2 as f16 at 7
  %pb = hisa.read 83 parts 2 as f16
  hisa.load_weights %pb plane 2 row 5 buffered parts 2 as f16 at 7
  // CHECK: hisa.install_weights plane 2 at 9
  hisa.install_weights plane 2 at 9
  // CHECK: %[[C:.*]] = hisa.read 82 part 2 parts 2 as i8
  %pc = hisa.read 82 part 2 parts 2 as i8
  // CHECK: %[[CF:.*]] = hisa.vcast %[[C]] from i8 to f16 lanes 16 parts 2
  %pcf = hisa.vcast %pc from i8 to f16 lanes 16 parts 2
  // CHECK: hisa.load_weights %[[CF]] plane 1 row 6 parts 2 as f16
  hisa.load_weights %pcf plane 1 row 6 parts 2 as f16
  %5 = hisa.read 2
  // CHECK: hisa.matmul %{{.*}} plane 1 on <east, 8>
  %6 = hisa.matmul %5 plane 1 on <east, 8>
  // CHECK: hisa.write %{{.*}} to 1 at 20
  hisa.write %6 to 1 at 20
  // An elementwise train: reads, vector instructions and a write issued 4
  // times.
  // CHECK: %[[EA:.*]] = hisa.read 100 repeat <4 every 1 step 2>
  %ea = hisa.read 100 repeat <4 every 1 step 2>
  // CHECK: %[[EB:.*]] = hisa.read 201 repeat <4 every 1> at 5
  %eb = hisa.read 201 repeat <4 every 1> at 5
  // CHECK: %[[ES:.*]] = hisa.vreduce sum %[[EB]] lanes 1 repeat <4 every 1>
  %es = hisa.vreduce sum %eb lanes 1 repeat <4 every 1>
  // A lane other than 0 spread over the vector, once and as a train.
  // CHECK: %[[OB:.*]] = hisa.read 300
  // CHECK: hisa.vbroadcast %[[OB]] lane 7 as i32 at 9 on <west, 2>
  %ob = hisa.read 300
  %ob7 = hisa.vbroadcast %ob lane 7 as i32 at 9 on <west, 2>
  // CHECK: hisa.vbroadcast %[[EB]] lane 3 repeat <4 every 1>
  %eb3 = hisa.vbroadcast %eb lane 3 repeat <4 every 1>
  // CHECK: %[[EM:.*]] = hisa.vbinary mul %[[EA]], %[[ES]] lanes 16 repeat <4 every 1> at 13 on <east, 4>
  %em = hisa.vbinary mul %ea, %es lanes 16 repeat <4 every 1> at 13 on <east, 4>
  // CHECK: %[[EU:.*]] = hisa.vunary relu %[[EM]] lanes 16 repeat <4 every 1>
  %eu = hisa.vunary relu %em lanes 16 repeat <4 every 1>
  // CHECK: %[[EC:.*]] = hisa.vcompare lt %[[EU]], %[[EA]] lanes 16 repeat <4 every 1>
  %ec = hisa.vcompare lt %eu, %ea lanes 16 repeat <4 every 1>
  // CHECK: %[[EL:.*]] = hisa.vselect %[[EC]], %[[EU]], %[[EA]] lanes 16 repeat <4 every 1>
  %el = hisa.vselect %ec, %eu, %ea lanes 16 repeat <4 every 1>
  // CHECK: hisa.write %[[EL]] to 300 repeat <4 every 1 step 2> at 20
  hisa.write %el to 300 repeat <4 every 1 step 2> at 20
  %8 = hisa.read 0
  // CHECK: %[[P:.*]] = hisa.permute %{{.*}} switch 0 map [3, 2, -1, 0] at 5 on <west, 4>
  %9 = hisa.permute %8 switch 0 map [3, 2, -1, 0] at 5 on <west, 4>
  %10 = hisa.read 2
  // CHECK: hisa.permute %{{.*}} into %[[P]] switch 1 map [-1, -1, 15, -1]{{$}}
  %11 = hisa.permute %10 into %9 switch 1 map [-1, -1, 15, -1]
  hisa.write %11 to 1
  return
}

// Tests the DMA instructions and staged bindings.
// CHECK-LABEL: func.func @dma
func.func @dma() {
  // CHECK: hisa.input "x" at 0 host 4 : tensor<1x16xf32>
  hisa.input "x" at 0 host 4 : tensor<1x16xf32>
  // CHECK: hisa.dma_in host 4 to 0 engine 1 at 3
  hisa.dma_in host 4 to 0 engine 1 at 3
  // CHECK: hisa.dma_out 0 to host 9 engine 0{{$}}
  hisa.dma_out 0 to host 9 engine 0
  // CHECK: hisa.dma_in host 5 to 1 part 1 as bf16 engine 0{{$}}
  hisa.dma_in host 5 to 1 part 1 as bf16 engine 0
  // CHECK: hisa.dma_out 1 part 1 as bf16 to host 10 engine 0{{$}}
  hisa.dma_out 1 part 1 as bf16 to host 10 engine 0
  return
}

// Tests the chip-to-chip instructions.
// CHECK-LABEL: func.func @c2c
func.func @c2c() {
  %0 = hisa.read 0
  // CHECK: hisa.c2c_send %{{.*}} link 1 at 14
  hisa.c2c_send %0 link 1 at 14
  // CHECK: hisa.c2c_recv link 1 at 620 on <east, 4>
  %1 = hisa.c2c_recv link 1 at 620 on <east, 4>
  hisa.write %1 to 3
  return
}

// Tests that element types print and parse back, that f32 prints no type,
// and that vcast, vcompare, vselect and the logical kinds round-trip.
// CHECK-LABEL: func.func @typed
func.func @typed() {
  // CHECK: hisa.input "h" at 0 : tensor<1x16xf16>
  hisa.input "h" at 0 : tensor<1x16xf16>
  // CHECK: hisa.constant at 2 dense<3> : tensor<16xi8>
  hisa.constant at 2 dense<3> : tensor<16xi8>
  // CHECK: %[[H:.*]] = hisa.read 0 as f16 at 3 on <east, 0>
  %0 = hisa.read 0 as f16 at 3 on <east, 0>
  // CHECK: %[[F:.*]] = hisa.read 1{{$}}
  %1 = hisa.read 1
  // CHECK: hisa.vbinary mul %[[H]], %[[H]] lanes 16 as f16 at 7 on <west, 4>
  %2 = hisa.vbinary mul %0, %0 lanes 16 as f16 at 7 on <west, 4>
  // CHECK: hisa.vcast %{{.*}} from f16 to f32 lanes 16
  %3 = hisa.vcast %2 from f16 to f32 lanes 16
  // CHECK: %[[B:.*]] = hisa.vcompare lt %{{.*}}, %[[F]] lanes 16{{$}}
  %4 = hisa.vcompare lt %3, %1 lanes 16
  // CHECK: hisa.vunary not %[[B]] lanes 16 as i1
  %5 = hisa.vunary not %4 lanes 16 as i1
  // CHECK: hisa.vbinary xor %[[B]], %{{.*}} lanes 16 as i1
  %6 = hisa.vbinary xor %4, %5 lanes 16 as i1
  %7 = hisa.read 2 as i32
  %8 = hisa.read 3 as i32
  // CHECK: hisa.vbinary mod %{{.*}}, %{{.*}} lanes 16 as i32
  %9 = hisa.vbinary mod %7, %8 lanes 16 as i32
  // CHECK: hisa.vbinary shl %{{.*}}, %{{.*}} lanes 16 as i32
  %s0 = hisa.vbinary shl %9, %8 lanes 16 as i32
  // CHECK: hisa.vbinary shr %{{.*}}, %{{.*}} lanes 16 as i32
  %s1 = hisa.vbinary shr %s0, %8 lanes 16 as i32
  // CHECK: hisa.vselect %{{.*}}, %{{.*}}, %{{.*}} lanes 16 as i32
  %10 = hisa.vselect %6, %s1, %7 lanes 16 as i32
  // CHECK: hisa.vreduce sum %{{.*}} lanes 16 as i32
  %11 = hisa.vreduce sum %10 lanes 16 as i32
  hisa.write %11 to 4 as i32
  // CHECK: hisa.vunary round %{{.*}} lanes 16 as bf16
  %12 = hisa.read 5 as bf16
  %13 = hisa.vunary round %12 lanes 16 as bf16
  // CHECK: hisa.write %{{.*}} to 5 as bf16
  hisa.write %13 to 5 as bf16
  %14 = hisa.read 2 as i8
  // CHECK: hisa.load_weights %{{.*}} plane 0 row 0 as i8
  hisa.load_weights %14 plane 0 row 0 as i8
  %15 = hisa.read 6 as ui8
  // CHECK: hisa.matmul %{{.*}} plane 0 as ui8
  %16 = hisa.matmul %15 plane 0 as ui8
  hisa.write %16 to 7 as i32
  %17 = hisa.read 2 as i1
  // CHECK: hisa.permute %{{.*}} switch 0 map [0, 0] as i1
  %18 = hisa.permute %17 switch 0 map [0, 0] as i1
  hisa.write %18 to 8 as i1
  return
}

// Tests that the narrow types and vcast's overflow and rounding print and
// parse back, and that their absence prints nothing.
// CHECK-LABEL: func.func @narrow
func.func @narrow() {
  %0 = hisa.read 0
  // CHECK: hisa.vcast %{{.*}} from f32 to f8E4M3FN lanes 16{{$}}
  %1 = hisa.vcast %0 from f32 to f8E4M3FN lanes 16
  // CHECK: hisa.vcast %{{.*}} from f32 to f8E5M2 overflow no_saturate lanes 16 at 3 on <east, 1>
  %2 = hisa.vcast %0 from f32 to f8E5M2 overflow no_saturate lanes 16 at 3 on <east, 1>
  // CHECK: hisa.vcast %{{.*}} from f32 to f8E8M0FNU rounding down lanes 16
  %3 = hisa.vcast %0 from f32 to f8E8M0FNU rounding down lanes 16
  // CHECK: hisa.vcast %{{.*}} from f32 to i4 overflow wrap lanes 16
  %4 = hisa.vcast %0 from f32 to i4 overflow wrap lanes 16
  // CHECK: hisa.write %{{.*}} to 1 as f8E4M3FN
  hisa.write %1 to 1 as f8E4M3FN
  // CHECK: hisa.read 2 as f4E2M1FN
  %5 = hisa.read 2 as f4E2M1FN
  // CHECK: hisa.vcast %{{.*}} from f4E2M1FN to f16 lanes 16
  %6 = hisa.vcast %5 from f4E2M1FN to f16 lanes 16
  // CHECK: hisa.permute %{{.*}} switch 0 map [1, 0] as ui2
  %7 = hisa.read 3 as ui2
  %8 = hisa.permute %7 switch 0 map [1, 0] as ui2
  hisa.write %8 to 4 as ui2
  return
}
