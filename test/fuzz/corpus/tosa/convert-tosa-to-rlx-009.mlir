func.func @cast(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf16>, tensor<4xf32>, tensor<4xi1>) {
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xf16>
  %1 = tosa.cast %i : (tensor<4xi32>) -> tensor<4xf32>
  %2 = tosa.cast %i : (tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf32>, tensor<4xi1>
}
