func.func @dynamic_shape_ops(%x: tensor<?x28x28xf32>) -> tensor<?x10xf32> {
  %shape = tosa.const_shape {values = dense<[-1, 784]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %x, %shape : (tensor<?x28x28xf32>, !tosa.shape<2>) -> tensor<?x784xf32>
  %start = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %size = tosa.const_shape {values = dense<[-1, 10]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %1 = tosa.slice %0, %start, %size : (tensor<?x784xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<?x10xf32>
  %2 = tosa.concat %1, %1 {axis = 0 : i32} : (tensor<?x10xf32>, tensor<?x10xf32>) -> tensor<?x10xf32>
  return %2 : tensor<?x10xf32>
}
