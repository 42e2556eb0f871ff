// Dynamic dims that the compiled code assumes equal are checked by the
// runtime before the call, with a message naming both dims.
// INFO: x: f32[?,4]
// MISMATCH: rlx-run: error: entry point 'f': dim 0 of input 'y' (3) must equal dim 0 of input 'x' (2)
// STATIC: rlx-run: error: entry point 'f': dim 0 of input 'z' (5) must be 4
func.func @f(%x: tensor<?x4xf32> {rlx.name = "x"}, %y: tensor<?x4xf32> {rlx.name = "y"},
             %z: tensor<?xf32> {rlx.name = "z"}) -> tensor<?x4xf32> {
  %0 = rlx.add %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = rlx.mul %0, %z : (tensor<?x4xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
