// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Tests that addresses are not negative.
func.func @bad_address() {
  // expected-error @+1 {{address must be >= 0, got -1}}
  %0 = hisa.read -1
  return
}

// -----

// Tests that vector instructions compute at least one lane.
func.func @bad_lanes() {
  %0 = hisa.read 0
  // expected-error @+1 {{lanes must be >= 1, got 0}}
  %1 = hisa.vunary relu %0 lanes 0
  return
}

// -----

// Tests that weight rows are not negative.
func.func @bad_row() {
  %0 = hisa.read 0
  // expected-error @+1 {{row must be >= 0, got -2}}
  hisa.load_weights %0 plane 0 row -2
  return
}

// -----

// Tests that planes are not negative.
func.func @bad_plane() {
  %0 = hisa.read 0
  // expected-error @+1 {{plane must be >= 0, got -1}}
  %1 = hisa.matmul %0 plane -1
  return
}

// -----

// Tests that weight columns are not negative.
func.func @bad_column() {
  %0 = hisa.read 0
  // expected-error @+1 {{column must be >= 0, got -1}}
  hisa.load_weights %0 plane 0 column -1
  return
}

// -----

// Tests that a permute's switch is not negative.
func.func @bad_switch() {
  %0 = hisa.read 0
  // expected-error @+1 {{switch must be >= 0, got -1}}
  %1 = hisa.permute %0 switch -1 map [0]
  return
}

// -----

// Tests that a permute's map has at least one lane.
func.func @empty_map() {
  %0 = hisa.read 0
  // expected-error @+1 {{map must have at least one lane}}
  %1 = hisa.permute %0 switch 0 map []
  return
}

// -----

// Tests that map entries are lanes or -1.
func.func @bad_map_entry() {
  %0 = hisa.read 0
  // expected-error @+1 {{map[1] is -2; entries are source lanes (>= 0) or -1 (keep)}}
  %1 = hisa.permute %0 switch 0 map [0, -2]
  return
}

// -----

// Tests that DMA host addresses and engines are not negative.
func.func @bad_dma() {
  // expected-error @+1 {{host address must be >= 0, got -2}}
  hisa.dma_in host -2 to 0 engine 0
  return
}

// -----

func.func @bad_engine() {
  // expected-error @+1 {{engine must be >= 0, got -1}}
  hisa.dma_out 0 to host 0 engine -1
  return
}

// -----

func.func @bad_host_binding() {
  // expected-error @+1 {{host address must be >= 0, got -1}}
  hisa.output "y" at 0 host -1 : tensor<1x16xf32>
  return
}

// -----

func.func @bad_link() {
  // expected-error @+1 {{link must be >= 0, got -1}}
  %0 = hisa.c2c_recv link -1
  return
}
