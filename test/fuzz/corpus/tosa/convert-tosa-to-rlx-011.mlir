// Shapes, starts and sizes come from tosa.const_shape, which is then dropped.
func.func @shape_ops(%x: tensor<2x3x4xf32>) -> tensor<4x4xf32> {
  %shape = tosa.const_shape {values = dense<[6, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %shape : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<6x4xf32>
  %1 = tosa.transpose %0 {perms = array<i32: 1, 0>} : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %start = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[2, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %2 = tosa.slice %1, %start, %size : (tensor<4x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x4xf32>
  %3 = tosa.concat %2, %2 {axis = 0 : i32} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  return %3 : tensor<4x4xf32>
}
