// TOSA keeps the reduced axis as size 1: keepdims = true.
func.func @reductions(%x: tensor<4x3xf32>) -> (tensor<4x1xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %1 = tosa.reduce_max %x {axis = 0 : i32} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  %2 = tosa.reduce_min %x {axis = 0 : i32} : (tensor<4x3xf32>) -> tensor<1x3xf32>
  return %0, %1, %2 : tensor<4x1xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}
