// Bounds become scalar constants of the element type; a bound at the end of
// the type's range is left out, and clamp(x, 0, max) is rlx.relu.
func.func @clamp(%x: tensor<4xf32>, %h: tensor<4xf16>, %bf: tensor<4xbf16>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>) {
  %0 = tosa.clamp %x {min_val = -1.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.clamp %h {min_val = 0.0 : f16, max_val = 0x7C00 : f16} : (tensor<4xf16>) -> tensor<4xf16>
  %2 = tosa.clamp %bf {min_val = 0xFF80 : bf16, max_val = 2.5 : bf16} : (tensor<4xbf16>) -> tensor<4xbf16>
  %3 = tosa.clamp %i {min_val = -3 : i32, max_val = 3 : i32} : (tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<4xi32>
}
