// Two weight tiles through plane 0's weight buffer (tools/run-weight-buffer.test):
// tile A is rows 0 and 2 of w, tile B rows 4 and 6; y row r is x row r by
// tile A (r = 0) or B (r = 1). Unscheduled: hetc compile schedules it.
func.func @main() {
  hisa.input "w" at 1024 : tensor<8x16xf32>
  hisa.input "x" at 2048 : tensor<2x16xf32>
  hisa.output "y" at 3072 : tensor<2x16xf32>
  %a0 = hisa.read 1024
  hisa.load_weights %a0 plane 0 row 0 buffered
  %a1 = hisa.read 1026
  hisa.load_weights %a1 plane 0 row 1 buffered
  hisa.install_weights plane 0
  %x = hisa.read 2048
  %p = hisa.matmul %x plane 0
  hisa.write %p to 3072
  %b0 = hisa.read 1028
  hisa.load_weights %b0 plane 0 row 0 buffered
  %b1 = hisa.read 1030
  hisa.load_weights %b1 plane 0 row 1 buffered
  hisa.install_weights plane 0
  %x2 = hisa.read 2049
  %q = hisa.matmul %x2 plane 0
  hisa.write %q to 3073
  return
}
